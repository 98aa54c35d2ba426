from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.md.j2'

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
    for l_1_e in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'entries'):
        _loop_vars = {}
        pass
        yield '- **'
        yield str(t_1(environment.getattr(l_1_e, 'label')))
        yield ':** '
        yield str(t_1(environment.getattr(l_1_e, 'value')))
        yield '\n'
        for l_2_d in environment.getattr(l_1_e, 'detail'):
            _loop_vars = {}
            pass
            yield '  - '
            yield str(t_1(l_2_d))
            yield '\n'
        l_2_d = missing
    l_1_e = missing
    for (l_1_label, l_1_items) in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'lists'):
        _loop_vars = {}
        pass
        yield '\n**'
        yield str(t_1(l_1_label))
        yield ':**\n\n'
        for l_2_item in l_1_items:
            _loop_vars = {}
            pass
            yield '- '
            yield str(t_1(l_2_item))
            yield '\n'
        l_2_item = missing
    l_1_label = l_1_items = missing

blocks = {}
debug_info = '2=18&3=22&4=26&5=30&8=34&10=38&12=40&13=44'