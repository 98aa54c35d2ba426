from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.txt.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_report = resolve('report')
    pass
    for l_1_e in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'entries'):
        _loop_vars = {}
        pass
        yield str(environment.getattr(l_1_e, 'label'))
        yield ': '
        yield str(environment.getattr(l_1_e, 'value'))
        yield '\n'
        for l_2_d in environment.getattr(l_1_e, 'detail'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_2_d)
            yield '\n'
        l_2_d = missing
    l_1_e = missing
    for (l_1_label, l_1_items) in environment.getattr((undefined(name='report') if l_0_report is missing else l_0_report), 'lists'):
        _loop_vars = {}
        pass
        yield str(l_1_label)
        yield ':\n'
        for l_2_item in l_1_items:
            _loop_vars = {}
            pass
            yield '  - '
            yield str(l_2_item)
            yield '\n'
        l_2_item = missing
    l_1_label = l_1_items = missing

blocks = {}
debug_info = '2=12&3=15&4=19&5=23&8=27&9=30&10=32&11=36'