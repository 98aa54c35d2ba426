from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'steps.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_align = l_0_table = l_0_step = missing
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
    pass
    included_template = environment.get_template('layout.tex.j2', 'steps.tex.j2')._get_default_module(context)
    l_0_align = getattr(included_template, 'align', missing)
    if l_0_align is missing:
        l_0_align = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'steps.tex.j2') does not export the requested name 'align'", name='align')
    l_0_table = getattr(included_template, 'table', missing)
    if l_0_table is missing:
        l_0_table = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'steps.tex.j2') does not export the requested name 'table'", name='table')
    context.vars.update({'align': l_0_align, 'table': l_0_table})
    context.exported_vars.difference_update(('align', 'table'))
    def macro(l_1_step, l_1_index, l_1_table_first, l_1_narrow_notes):
        t_4 = []
        if l_1_step is missing:
            l_1_step = undefined("parameter 'step' was not provided", name='step')
        if l_1_index is missing:
            l_1_index = undefined("parameter 'index' was not provided", name='index')
        if l_1_table_first is missing:
            l_1_table_first = False
        if l_1_narrow_notes is missing:
            l_1_narrow_notes = True
        pass
        t_4.extend((
            '\n\\paragraph{Step ',
            str(l_1_index),
            ': ',
            str(t_1(environment.getattr(l_1_step, 'heading'))),
            '.} \\emph{Rule: ',
            str(t_1(environment.getattr(l_1_step, 'rule'))),
            '.} ',
            str(t_3(environment.getattr(l_1_step, 'reason'))),
            '\n',
        ))
        if (l_1_table_first and environment.getattr(l_1_step, 'table')):
            pass
            t_4.append(
                str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_step, 'table'), fold_wide=False)),
            )
        if environment.getattr(l_1_step, 'lines'):
            pass
            t_4.append(
                str(context.call((undefined(name='align') if l_0_align is missing else l_0_align), environment.getattr(l_1_step, 'lines'))),
            )
        if (environment.getattr(l_1_step, 'table') and (not l_1_table_first)):
            pass
            t_4.append(
                str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_step, 'table'))),
            )
        if environment.getattr(l_1_step, 'notes'):
            pass
            t_4.append(
                '\\begin{itemize}\\raggedright\n',
            )
            for l_2_n in environment.getattr(l_1_step, 'notes'):
                _loop_vars = {}
                pass
                t_4.extend((
                    '\\item ',
                    str((t_2(l_2_n, 28) if l_1_narrow_notes else t_3(l_2_n))),
                    '\n',
                ))
            l_2_n = missing
            t_4.append(
                '\\end{itemize}\n',
            )
        return concat(t_4)
    context.exported_vars.add('step')
    context.vars['step'] = l_0_step = Macro(environment, macro, 'step', ('step', 'index', 'table_first', 'narrow_notes'), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '5=30&6=39&8=52&9=61&10=66&11=71&12=76&15=81&16=86'