from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'kernel.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_label = resolve('label')
    l_0_title = resolve('title')
    l_0_text = resolve('text')
    l_0_given = resolve('given')
    l_0_steps = resolve('steps')
    l_0_verdict = resolve('verdict')
    l_0_steps_tex = missing
    try:
        t_1 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_2 = environment.filters['narrow']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'narrow' found.")
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
    l_0_steps_tex = context.vars['steps_tex'] = environment.get_template('steps.tex.j2', 'kernel.tex.j2')._get_default_module(context)
    context.exported_vars.discard('steps_tex')
    if (t_4((undefined(name='label') if l_0_label is missing else l_0_label)) and (undefined(name='label') if l_0_label is missing else l_0_label)):
        pass
        yield '\\subsection{'
        yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
        yield '}\n\\label{'
        yield str((undefined(name='label') if l_0_label is missing else l_0_label))
        yield '}\n'
    else:
        pass
        yield '\\subsubsection*{'
        yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
        yield '}\n'
    if (t_4((undefined(name='text') if l_0_text is missing else l_0_text)) and (undefined(name='text') if l_0_text is missing else l_0_text)):
        pass
        yield str(t_1((undefined(name='text') if l_0_text is missing else l_0_text)))
        yield '\n\n'
    yield '\n\\paragraph{Given.} '
    yield str(t_3((undefined(name='given') if l_0_given is missing else l_0_given)))
    yield '\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext((undefined(name='steps') if l_0_steps is missing else l_0_steps), undefined):
        _loop_vars = {}
        pass
        yield str(context.call(environment.getattr((undefined(name='steps_tex') if l_0_steps_tex is missing else l_0_steps_tex), 'step'), l_1_step, environment.getattr(l_1_loop, 'index'), _loop_vars=_loop_vars))
    l_1_loop = l_1_step = missing
    for l_1_v in (undefined(name='verdict') if l_0_verdict is missing else l_0_verdict):
        _loop_vars = {}
        pass
        yield '\n{\\raggedright\\noindent\\textbf{'
        yield str(t_2(l_1_v, 28))
        yield '}\\par}\n'
    l_1_v = missing

blocks = {}
debug_info = '3=42&4=44&5=47&6=49&8=54&10=56&11=58&15=61&16=64&17=67&19=69&21=73'