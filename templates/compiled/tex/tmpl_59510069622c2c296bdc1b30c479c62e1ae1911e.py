from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'compare.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_title = resolve('title')
    l_0_parts = resolve('parts')
    l_0_tables = resolve('tables')
    l_0_table = missing
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
        t_3 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    pass
    included_template = environment.get_template('layout.tex.j2', 'compare.tex.j2')._get_default_module(context)
    l_0_table = getattr(included_template, 'table', missing)
    if l_0_table is missing:
        l_0_table = undefined(f"the template {included_template.__name__!r} (imported on line 4 in 'compare.tex.j2') does not export the requested name 'table'", name='table')
    context.vars['table'] = l_0_table
    context.exported_vars.discard('table')
    yield '% derive '
    yield str(t_1((undefined(name='title') if l_0_title is missing else l_0_title)))
    yield '; '
    yield str(t_2(context.eval_ctx, t_3(context, t_3(context, (undefined(name='parts') if l_0_parts is missing else l_0_parts), 'join', ': '), 'e'), '; '))
    yield '\n% needs \\usepackage{amsmath,booktabs,tabularx}\n'
    l_1_loop = missing
    for l_1_t, l_1_loop in LoopContext((undefined(name='tables') if l_0_tables is missing else l_0_tables), undefined):
        _loop_vars = {}
        pass
        if (not environment.getattr(l_1_loop, 'first')):
            pass
            yield '\\smallskip\n'
        yield str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_t, 'rows'), fold_wide=False, widths=environment.getattr(l_1_t, 'widths'), stretch='1.6', caption=environment.getattr(l_1_t, 'title'), _loop_vars=_loop_vars))
        yield '\n'
    l_1_loop = l_1_t = missing

blocks = {}
debug_info = '4=33&5=40&7=45&8=48&11=51'