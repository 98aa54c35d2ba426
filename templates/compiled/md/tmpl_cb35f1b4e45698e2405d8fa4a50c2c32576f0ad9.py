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
    l_0_steps_md = missing
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
    try:
        t_3 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    l_0_steps_md = context.vars['steps_md'] = environment.get_template('steps.md.j2', 'kernel.md.j2')._get_default_module(context)
    context.exported_vars.discard('steps_md')
    yield str(('#' * (undefined(name='level') if l_0_level is missing else l_0_level)))
    yield ' '
    yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
    yield '\n\n'
    if (t_3((undefined(name='text') if l_0_text is missing else l_0_text)) and (undefined(name='text') if l_0_text is missing else l_0_text)):
        pass
        yield str(t_1((undefined(name='text') if l_0_text is missing else l_0_text)))
        yield '\n\n'
    yield '**Given.** '
    yield str(t_2((undefined(name='given') if l_0_given is missing else l_0_given)))
    yield '\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext((undefined(name='steps') if l_0_steps is missing else l_0_steps), undefined):
        _loop_vars = {}
        pass
        yield str(context.call(environment.getattr((undefined(name='steps_md') if l_0_steps_md is missing else l_0_steps_md), 'step'), l_1_step, environment.getattr(l_1_loop, 'index'), (undefined(name='level') if l_0_level is missing else l_0_level), _loop_vars=_loop_vars))
    l_1_loop = l_1_step = missing
    yield '\n'
    for l_1_v in (undefined(name='verdict') if l_0_verdict is missing else l_0_verdict):
        _loop_vars = {}
        pass
        yield '**'
        yield str(t_2(l_1_v))
        yield '**\n\n'
    l_1_v = missing

blocks = {}
debug_info = '1=36&2=38&4=42&5=44&8=47&9=50&10=53&13=56&14=60'