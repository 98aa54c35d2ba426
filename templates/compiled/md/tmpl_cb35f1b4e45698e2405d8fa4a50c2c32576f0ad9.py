from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'kernel.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_level = resolve('level')
    l_0_title = resolve('title')
    l_0_text = resolve('text')
    l_0_given = resolve('given')
    l_0_steps = resolve('steps')
    l_0_verdict = resolve('verdict')
    l_0_line = missing
    try:
        t_1 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_2 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['rich']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'rich' found.")
    try:
        t_4 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    def macro(l_1_l):
        t_5 = []
        if l_1_l is missing:
            l_1_l = undefined("parameter 'l' was not provided", name='l')
        pass
        t_5.extend((
            '$$',
            str(environment.getattr(l_1_l, 'lhs')),
            ' ',
            str(environment.getattr(l_1_l, 'relation')),
            ' ',
            str(t_2(context.eval_ctx, environment.getattr(l_1_l, 'forms'), ' = ')),
        ))
        if environment.getattr(l_1_l, 'approx'):
            pass
            t_5.extend((
                ' \\approx ',
                str(environment.getattr(l_1_l, 'approx')),
            ))
        t_5.append(
            '$$\n',
        )
        return concat(t_5)
    context.exported_vars.add('line')
    context.vars['line'] = l_0_line = Macro(environment, macro, 'line', ('l',), False, False, False, context.eval_ctx.autoescape)
    yield str(('#' * (undefined(name='level') if l_0_level is missing else l_0_level)))
    yield ' '
    yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
    yield '\n\n'
    if (t_4((undefined(name='text') if l_0_text is missing else l_0_text)) and (undefined(name='text') if l_0_text is missing else l_0_text)):
        pass
        yield str(t_1((undefined(name='text') if l_0_text is missing else l_0_text)))
        yield '\n\n'
    yield '**Given.** '
    yield str(t_3((undefined(name='given') if l_0_given is missing else l_0_given)))
    yield '\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext((undefined(name='steps') if l_0_steps is missing else l_0_steps), undefined):
        _loop_vars = {}
        pass
        yield '\n'
        yield str(('#' * ((undefined(name='level') if l_0_level is missing else l_0_level) + 1)))
        yield ' Step '
        yield str(environment.getattr(l_1_loop, 'index'))
        yield ' — '
        yield str(environment.getattr(l_1_step, 'heading'))
        yield '\n\n*Rule: '
        yield str(t_1(environment.getattr(l_1_step, 'rule')))
        yield '.* '
        yield str(t_3(environment.getattr(l_1_step, 'reason')))
        yield '\n\n'
        for l_2_l in environment.getattr(l_1_step, 'lines'):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='line') if l_0_line is missing else l_0_line), l_2_l, _loop_vars=_loop_vars))
            yield '\n'
        l_2_l = missing
        if environment.getattr(l_1_step, 'table'):
            pass
            yield '| '
            yield str(t_2(context.eval_ctx, environment.getitem(environment.getattr(l_1_step, 'table'), 0), ' | '))
            yield ' |\n|'
            for l_2_h in environment.getitem(environment.getattr(l_1_step, 'table'), 0):
                _loop_vars = {}
                pass
                yield '---|'
            l_2_h = missing
            yield '\n'
            l_2_loop = missing
            for l_2_row, l_2_loop in LoopContext(environment.getattr(l_1_step, 'table')[1:], undefined):
                _loop_vars = {}
                pass
                yield '| '
                l_3_loop = missing
                for l_3_c, l_3_loop in LoopContext(l_2_row, undefined):
                    _loop_vars = {}
                    pass
                    yield str(t_3(l_3_c))
                    yield str((' | ' if (not environment.getattr(l_3_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 25 in 'kernel.md.j2' evaluated to false and no else section was defined.")))
                l_3_loop = l_3_c = missing
                yield ' |\n'
            l_2_loop = l_2_row = missing
            yield '\n'
        for l_2_n in environment.getattr(l_1_step, 'notes'):
            _loop_vars = {}
            pass
            yield '- '
            yield str(t_3(l_2_n))
            yield '\n'
        l_2_n = missing
    l_1_loop = l_1_step = missing
    yield '\n'
    for l_1_v in (undefined(name='verdict') if l_0_verdict is missing else l_0_verdict):
        _loop_vars = {}
        pass
        yield '**'
        yield str(t_3(l_1_v))
        yield '**\n\n'
    l_1_v = missing

blocks = {}
debug_info = '1=42&2=49&4=67&6=71&7=73&10=76&11=79&13=83&15=89&17=93&18=96&20=99&21=102&22=104&24=111&25=116&29=125&30=129&34=134&35=138'