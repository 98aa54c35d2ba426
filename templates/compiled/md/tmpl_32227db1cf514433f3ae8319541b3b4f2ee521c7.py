from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'solution.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_view = resolve('view')
    l_0_level = resolve('level')
    l_0_line = l_0_p = missing
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
    pass
    def macro(l_1_l):
        t_4 = []
        if l_1_l is missing:
            l_1_l = undefined("parameter 'l' was not provided", name='l')
        pass
        t_4.extend((
            '$$',
            str(environment.getattr(l_1_l, 'lhs')),
            ' ',
            str(environment.getattr(l_1_l, 'relation')),
            ' ',
            str(t_2(context.eval_ctx, environment.getattr(l_1_l, 'forms'), ' = ')),
        ))
        if environment.getattr(l_1_l, 'approx'):
            pass
            t_4.extend((
                ' \\approx ',
                str(environment.getattr(l_1_l, 'approx')),
            ))
        t_4.append(
            '$$\n',
        )
        return concat(t_4)
    context.exported_vars.add('line')
    context.vars['line'] = l_0_line = Macro(environment, macro, 'line', ('l',), False, False, False, context.eval_ctx.autoescape)
    l_0_p = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'problem')
    context.vars['p'] = l_0_p
    context.exported_vars.add('p')
    yield str(('#' * (undefined(name='level') if l_0_level is missing else l_0_level)))
    yield ' '
    yield str(t_1(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'title')))
    yield '\n\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'text'):
        pass
        yield str(t_1(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'text')))
        yield '\n\n'
    yield '**Given.** Operator `'
    yield str(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'operator'), 'name'))
    yield '`'
    if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'):
        pass
        yield ' on '
        yield str(t_1(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'), 'title')))
        yield ' (`'
        yield str(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'), 'name'))
        yield '`)'
    yield '; compute dtype '
    yield str(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'compute_dtype'))
    yield ' ('
    yield str(t_1(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'compute_reason')))
    yield '); solving for $'
    yield str(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'x'))
    yield '$'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'bound'):
        pass
        yield '; bound: '
        l_1_loop = missing
        for l_1_d, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'bound'), undefined):
            _loop_vars = {}
            pass
            yield '$'
            yield str(l_1_d)
            yield '$'
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 11 in 'solution.md.j2' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_d = missing
    yield '.\n\n| tensor | role | shape | dtype | bytes/element |\n|---|---|---|---|---|\n'
    for l_1_t in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tensors'):
        _loop_vars = {}
        pass
        yield '| '
        yield str(t_1(environment.getattr(l_1_t, 'name')))
        yield ' | '
        yield str(environment.getattr(l_1_t, 'role'))
        yield ' | $'
        yield str(environment.getattr(l_1_t, 'shape'))
        yield '$ | '
        yield str(environment.getattr(l_1_t, 'dtype'))
        yield ' | $'
        yield str(environment.getattr(l_1_t, 'width'))
        yield '$ |\n'
    l_1_t = missing
    yield '\n| hardware | symbol | value | source |\n|---|---|---|---|\n'
    for l_1_h in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware'):
        _loop_vars = {}
        pass
        yield '| '
        yield str(t_1(environment.getattr(l_1_h, 'name')))
        yield ' | $'
        yield str(environment.getattr(l_1_h, 'symbol'))
        yield '$ | $'
        yield str(environment.getattr(l_1_h, 'value'))
        yield '$ '
        yield str(environment.getattr(l_1_h, 'unit'))
        yield ' | '
        yield str(t_1(environment.getattr(l_1_h, 'source')))
        yield ' |\n'
    l_1_h = missing
    if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'regime'):
        pass
        yield '\nRegime: '
        yield str(t_3(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'regime')))
        yield '.\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'steps'), undefined):
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
                    yield str((' | ' if (not environment.getattr(l_3_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 42 in 'solution.md.j2' evaluated to false and no else section was defined.")))
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
    for l_1_w in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'warnings'):
        _loop_vars = {}
        pass
        yield '> **'
        yield str(t_3(l_1_w))
        yield '**\n\n'
    l_1_w = missing
    for l_1_v in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'):
        _loop_vars = {}
        pass
        yield '**'
        yield str(t_3(l_1_v))
        yield '**\n\n'
    l_1_v = missing

blocks = {}
debug_info = '1=32&2=39&4=57&5=60&7=64&8=66&11=69&15=98&16=102&21=114&22=118&24=129&26=132&28=135&30=139&32=145&34=149&35=152&37=155&38=158&39=160&41=167&42=172&46=181&47=185&51=190&52=194&55=197&56=201'