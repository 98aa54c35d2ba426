from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_report = resolve('report')
    try:
        t_1 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    pass
    yield '\\begin{description}\n'
    for l_1_e in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'entries'):
        _loop_vars = {}
        pass
        yield '\\item['
        yield str(t_1(environment.getattr(l_1_e, 'label')))
        yield ':] '
        yield str(t_1(environment.getattr(l_1_e, 'value')))
        yield '\n'
        if environment.getattr(l_1_e, 'detail'):
            pass
            yield '\\begin{itemize}\n'
            for l_2_d in environment.getattr(l_1_e, 'detail'):
                _loop_vars = {}
                pass
                yield '\\item '
                yield str(t_1(l_2_d))
                yield '\n'
            l_2_d = missing
            yield '\\end{itemize}\n'
    l_1_e = missing
    for (l_1_label, l_1_items) in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'lists'):
        _loop_vars = {}
        pass
        yield '\\item['
        yield str(t_1(l_1_label))
        yield ':]\n\\begin{itemize}\n'
        for l_2_item in l_1_items:
            _loop_vars = {}
            pass
            yield '\\item '
            yield str(t_1(l_2_item))
            yield '\n'
        l_2_item = missing
        yield '\\end{itemize}\n'
    l_1_label = l_1_items = missing
    yield '\\end{description}\n'

blocks = {}
debug_info = '3=19&4=23&5=27&7=30&8=34&13=39&14=43&16=45&17=49'