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
    l_0_align = l_0_table = missing
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
    included_template = environment.get_template('fit.tex.j2', 'kernel.tex.j2')._get_default_module(context)
    l_0_align = getattr(included_template, 'align', missing)
    if l_0_align is missing:
        l_0_align = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'kernel.tex.j2') does not export the requested name 'align'", name='align')
    l_0_table = getattr(included_template, 'table', missing)
    if l_0_table is missing:
        l_0_table = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'kernel.tex.j2') does not export the requested name 'table'", name='table')
    context.vars.update({'align': l_0_align, 'table': l_0_table})
    context.exported_vars.difference_update(('align', 'table'))
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
        yield '\n\\paragraph{Step '
        yield str(environment.getattr(l_1_loop, 'index'))
        yield ': '
        yield str(t_1(environment.getattr(l_1_step, 'heading')))
        yield '.} \\emph{Rule: '
        yield str(t_1(environment.getattr(l_1_step, 'rule')))
        yield '.} '
        yield str(t_3(environment.getattr(l_1_step, 'reason')))
        yield '\n'
        if environment.getattr(l_1_step, 'lines'):
            pass
            yield str(context.call((undefined(name='align') if l_0_align is missing else l_0_align), environment.getattr(l_1_step, 'lines'), _loop_vars=_loop_vars))
        if environment.getattr(l_1_step, 'table'):
            pass
            yield str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_step, 'table'), _loop_vars=_loop_vars))
        if environment.getattr(l_1_step, 'notes'):
            pass
            yield '\\begin{itemize}\n'
            for l_2_n in environment.getattr(l_1_step, 'notes'):
                _loop_vars = {}
                pass
                yield '\\item '
                yield str(t_2(l_2_n, 28))
                yield '\n'
            l_2_n = missing
            yield '\\end{itemize}\n'
    l_1_loop = l_1_step = missing
    for l_1_v in (undefined(name='verdict') if l_0_verdict is missing else l_0_verdict):
        _loop_vars = {}
        pass
        yield '\n{\\raggedright\\noindent\\textbf{'
        yield str(t_2(l_1_v, 28))
        yield '}\\par}\n'
    l_1_v = missing

blocks = {}
debug_info = '3=42&4=51&5=54&6=56&8=61&10=63&11=65&15=68&16=71&18=75&19=83&20=86&21=89&23=92&24=96&29=101&31=105'