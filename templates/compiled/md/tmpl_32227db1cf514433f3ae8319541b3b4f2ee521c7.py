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
    l_0_steps_md = l_0_p = missing
    try:
        t_1 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_2 = environment.filters['rich']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'rich' found.")
    pass
    l_0_steps_md = context.vars['steps_md'] = environment.get_template('steps.md.j2', 'solution.md.j2')._get_default_module(context)
    context.exported_vars.discard('steps_md')
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
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 9 in 'solution.md.j2' evaluated to false and no else section was defined.")))
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
        yield str(t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'regime')))
        yield '.\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'steps'), undefined):
        _loop_vars = {}
        pass
        yield str(context.call(environment.getattr((undefined(name='steps_md') if l_0_steps_md is missing else l_0_steps_md), 'step'), l_1_step, environment.getattr(l_1_loop, 'index'), (undefined(name='level') if l_0_level is missing else l_0_level), _loop_vars=_loop_vars))
    l_1_loop = l_1_step = missing
    yield '\n'
    for l_1_w in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'warnings'):
        _loop_vars = {}
        pass
        yield '> **'
        yield str(t_2(l_1_w))
        yield '**\n\n'
    l_1_w = missing
    for l_1_v in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'):
        _loop_vars = {}
        pass
        yield '**'
        yield str(t_2(l_1_v))
        yield '**\n\n'
    l_1_v = missing

blocks = {}
debug_info = '1=26&2=28&3=31&5=35&6=37&9=40&13=69&14=73&19=85&20=89&22=100&24=103&26=106&27=109&30=112&31=116&34=119&35=123'