from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'model.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_givens_only = resolve('givens_only')
    l_0_level = resolve('level')
    l_0_title = resolve('title')
    l_0_text = resolve('text')
    l_0_model = resolve('model')
    l_0_describe = resolve('describe')
    l_0_dtypes = resolve('dtypes')
    l_0_chip = resolve('chip')
    l_0_devices = resolve('devices')
    l_0_hardware = resolve('hardware')
    l_0_bound = resolve('bound')
    l_0_given = resolve('given')
    l_0_steps = resolve('steps')
    l_0_left_out = resolve('left_out')
    l_0_warnings = resolve('warnings')
    l_0_verdicts = resolve('verdicts')
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
    pass
    def macro(l_1_l):
        t_4 = []
        if l_1_l is missing:
            l_1_l = undefined("parameter 'l' was not provided", name='l')
        pass
        t_4.extend((
            '$$',
            str(environment.getattr(l_1_l, 'lhs')),
            ' = ',
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
    if (not (undefined(name='givens_only') if l_0_givens_only is missing else l_0_givens_only)):
        pass
        yield str(('#' * (undefined(name='level') if l_0_level is missing else l_0_level)))
        yield ' '
        yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
        yield '\n\n'
    if (undefined(name='text') if l_0_text is missing else l_0_text):
        pass
        yield str(t_1((undefined(name='text') if l_0_text is missing else l_0_text)))
        yield '\n\n'
    if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'doc'):
        pass
        yield str(t_1(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'doc')))
        yield '\n\n'
    yield '**Given.** Model `'
    yield str(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'name'))
    yield '` ('
    yield str(t_1((undefined(name='describe') if l_0_describe is missing else l_0_describe)))
    yield '); dtypes: '
    yield str(t_1((undefined(name='dtypes') if l_0_dtypes is missing else l_0_dtypes)))
    if (undefined(name='chip') if l_0_chip is missing else l_0_chip):
        pass
        yield '; '
        yield str((undefined(name='devices') if l_0_devices is missing else l_0_devices))
        yield ' × '
        yield str(t_1(environment.getattr((undefined(name='chip') if l_0_chip is missing else l_0_chip), 'title')))
        yield ' (`'
        yield str(environment.getattr((undefined(name='chip') if l_0_chip is missing else l_0_chip), 'name'))
        yield '`)'
    elif (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware):
        pass
        yield '; '
        yield str((undefined(name='devices') if l_0_devices is missing else l_0_devices))
        yield ' device'
        yield str(('s' if ((undefined(name='devices') if l_0_devices is missing else l_0_devices) != 1) else cond_expr_undefined("the inline if-expression on line 16 in 'model.md.j2' evaluated to false and no else section was defined.")))
    if (undefined(name='bound') if l_0_bound is missing else l_0_bound):
        pass
        yield '; bound: '
        yield str(t_1(t_2(context.eval_ctx, (undefined(name='bound') if l_0_bound is missing else l_0_bound), ', ')))
    yield '. Units: GB = 10⁹ B and GiB = 2³⁰ B, both named where used.\n\n| symbol | meaning | value |\n|---|---|---|\n'
    for (l_1_s, l_1_meaning, l_1_value) in (undefined(name='given') if l_0_given is missing else l_0_given):
        _loop_vars = {}
        pass
        yield '| $'
        yield str(l_1_s)
        yield '$ | '
        yield str(t_1(l_1_meaning))
        yield ' | $'
        yield str(l_1_value)
        yield '$ |\n'
    l_1_s = l_1_meaning = l_1_value = missing
    if (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware):
        pass
        yield '\n| hardware | symbol | value | source |\n|---|---|---|---|\n'
        for (l_1_name, l_1_s, l_1_value, l_1_source) in (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware):
            _loop_vars = {}
            pass
            yield '| '
            yield str(t_1(l_1_name))
            yield ' | $'
            yield str(l_1_s)
            yield '$ | $'
            yield str(l_1_value)
            yield '$ | '
            yield str(t_1(l_1_source))
            yield ' |\n'
        l_1_name = l_1_s = l_1_value = l_1_source = missing
    if (not (undefined(name='givens_only') if l_0_givens_only is missing else l_0_givens_only)):
        pass
        l_1_loop = missing
        for l_1_step, l_1_loop in LoopContext((undefined(name='steps') if l_0_steps is missing else l_0_steps), undefined):
            _loop_vars = {}
            pass
            yield '\n'
            yield str(('#' * ((undefined(name='level') if l_0_level is missing else l_0_level) + 1)))
            yield ' Step '
            yield str(environment.getattr(l_1_loop, 'index'))
            yield ' — '
            yield str(t_1(environment.getattr(l_1_step, 'heading')))
            yield '\n\n*Rule: '
            yield str(t_1(environment.getattr(l_1_step, 'rule')))
            yield '.* '
            yield str(t_3(environment.getattr(l_1_step, 'reason')))
            yield '\n\n'
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
                        yield str((' | ' if (not environment.getattr(l_3_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 43 in 'model.md.j2' evaluated to false and no else section was defined.")))
                    l_3_loop = l_3_c = missing
                    yield ' |\n'
                l_2_loop = l_2_row = missing
                yield '\n'
            for l_2_l in environment.getattr(l_1_step, 'lines'):
                _loop_vars = {}
                pass
                yield str(context.call((undefined(name='line') if l_0_line is missing else l_0_line), l_2_l, _loop_vars=_loop_vars))
                yield '\n'
            l_2_l = missing
            for l_2_n in environment.getattr(l_1_step, 'notes'):
                _loop_vars = {}
                pass
                yield '- '
                yield str(t_3(l_2_n))
                yield '\n'
            l_2_n = missing
        l_1_loop = l_1_step = missing
        if (undefined(name='left_out') if l_0_left_out is missing else l_0_left_out):
            pass
            yield '\nNot derived: '
            l_1_loop = missing
            for (l_1_key, l_1_why), l_1_loop in LoopContext((undefined(name='left_out') if l_0_left_out is missing else l_0_left_out), undefined):
                _loop_vars = {}
                pass
                yield '`'
                yield str(l_1_key)
                yield '` ('
                yield str(t_1(l_1_why))
                yield ')'
                yield str(('; ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 56 in 'model.md.j2' evaluated to false and no else section was defined.")))
            l_1_loop = l_1_key = l_1_why = missing
            yield '.\n'
        yield '\n'
        for l_1_w in (undefined(name='warnings') if l_0_warnings is missing else l_0_warnings):
            _loop_vars = {}
            pass
            yield '> **'
            yield str(t_1(l_1_w))
            yield '**\n\n'
        l_1_w = missing
        for l_1_v in (undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts):
            _loop_vars = {}
            pass
            yield '**'
            yield str(t_1(l_1_v))
            yield '**\n\n'
        l_1_v = missing

blocks = {}
debug_info = '1=46&2=53&4=69&5=71&8=75&9=77&12=79&13=81&16=84&20=109&21=113&23=120&27=123&28=127&31=136&32=139&34=143&36=149&38=153&39=156&40=158&42=165&43=170&47=179&48=182&50=185&51=189&54=193&56=197&59=209&60=213&63=216&64=220'