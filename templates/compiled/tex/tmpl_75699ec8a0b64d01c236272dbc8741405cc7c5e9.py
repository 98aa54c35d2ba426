from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'solution.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_view = resolve('view')
    l_0_label = resolve('label')
    l_0_steps_tex = l_0_p = missing
    try:
        t_1 = environment.filters['batch']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'batch' found.")
    try:
        t_2 = environment.filters['code']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'code' found.")
    try:
        t_3 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_4 = environment.filters['narrow']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'narrow' found.")
    try:
        t_5 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_6 = environment.filters['rich']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'rich' found.")
    try:
        t_7 = environment.tests['defined']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No test named 'defined' found.")
    pass
    l_0_steps_tex = context.vars['steps_tex'] = environment.get_template('steps.tex.j2', 'solution.tex.j2')._get_default_module(context)
    context.exported_vars.discard('steps_tex')
    l_0_p = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'problem')
    context.vars['p'] = l_0_p
    context.exported_vars.add('p')
    yield '\\subsection{'
    yield str(t_3(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'title')))
    yield '}\n'
    if (t_7((undefined(name='label') if l_0_label is missing else l_0_label)) and (undefined(name='label') if l_0_label is missing else l_0_label)):
        pass
        yield '\\label{'
        yield str((undefined(name='label') if l_0_label is missing else l_0_label))
        yield '}\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'text'):
        pass
        yield str(t_3(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'text')))
        yield '\n\n'
    yield '{\\raggedright\\paragraph{Given.} Operator '
    yield str(t_2(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'operator'), 'name')))
    if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'):
        pass
        yield ' on '
        yield str(t_3(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'), 'title')))
        yield ' ('
        yield str(t_2(environment.getattr(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'chip'), 'name')))
        yield ')'
    yield '; compute dtype '
    yield str(t_3(environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'compute_dtype')))
    yield ' ('
    yield str(t_3(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'compute_reason')))
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
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 13 in 'solution.tex.j2' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_d = missing
    yield '.\\par}\n\n{\\small\n'
    for l_1_tensors in t_1(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tensors'), 16):
        _loop_vars = {}
        pass
        yield '\\noindent\\begin{tabularx}{\\linewidth}{@{}>{\\raggedright\\arraybackslash\\hsize=1.2\\hsize}X>{\\raggedright\\arraybackslash}X>{\\raggedright\\arraybackslash\\hsize=0.8\\hsize}X@{}}\n\\toprule\ntensor (role) & shape & dtype, bytes per element \\\\\n\\midrule\n'
        for l_2_t in l_1_tensors:
            _loop_vars = {}
            pass
            yield str(t_5(context.eval_ctx, t_3(environment.getattr(l_2_t, 'name')), '\\_', '\\_\\allowbreak{}'))
            yield ' ('
            yield str(environment.getattr(l_2_t, 'role'))
            yield ') & $'
            yield str(environment.getattr(l_2_t, 'shape'))
            yield '$ & '
            yield str(t_3(environment.getattr(l_2_t, 'dtype')))
            yield ', $'
            yield str(environment.getattr(l_2_t, 'width'))
            yield '$ \\\\\n'
        l_2_t = missing
        yield '\\bottomrule\n\\end{tabularx}\n'
    l_1_tensors = missing
    yield '\n\\smallskip\n\\noindent\\begin{tabularx}{\\linewidth}{@{}>{\\raggedright\\arraybackslash}X>{\\raggedright\\arraybackslash}X>{\\raggedright\\arraybackslash\\footnotesize}X@{}}\n\\toprule\nhardware & value & source \\\\\n\\midrule\n'
    for l_1_h in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'hardware'):
        _loop_vars = {}
        pass
        yield str(t_3(environment.getattr(l_1_h, 'name')))
        yield ', $'
        yield str(environment.getattr(l_1_h, 'symbol'))
        yield '$ & $'
        yield str(environment.getattr(l_1_h, 'value'))
        yield '$ '
        yield str(t_3(environment.getattr(l_1_h, 'unit')))
        yield ' & '
        yield str(t_3(environment.getattr(l_1_h, 'source')))
        yield ' \\\\\n'
    l_1_h = missing
    yield '\\bottomrule\n\\end{tabularx}\\par}\n\\medskip\n'
    if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'regime'):
        pass
        yield '\nRegime: '
        yield str(t_6(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'regime')))
        yield '.\n'
    l_1_loop = missing
    for l_1_step, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'steps'), undefined):
        _loop_vars = {}
        pass
        yield str(context.call(environment.getattr((undefined(name='steps_tex') if l_0_steps_tex is missing else l_0_steps_tex), 'step'), l_1_step, environment.getattr(l_1_loop, 'index'), _loop_vars=_loop_vars))
    l_1_loop = l_1_step = missing
    for l_1_w in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'warnings'):
        _loop_vars = {}
        pass
        yield '\n\\noindent\\fbox{\\parbox{\\dimexpr\\linewidth-2\\fboxsep-2\\fboxrule}{\\raggedright\\textbf{'
        yield str(t_4(l_1_w, 28))
        yield '}}}\n'
    l_1_w = missing
    for l_1_v in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'):
        _loop_vars = {}
        pass
        yield '\n{\\raggedright\\noindent\\textbf{'
        yield str(t_4(l_1_v, 28))
        yield '}\\par}\n'
    l_1_v = missing

blocks = {}
debug_info = '2=56&3=58&4=62&5=64&6=67&8=69&9=71&13=74&17=102&22=106&23=109&34=123&35=126&40=138&42=141&44=144&45=147&47=149&49=153&51=156&53=160'