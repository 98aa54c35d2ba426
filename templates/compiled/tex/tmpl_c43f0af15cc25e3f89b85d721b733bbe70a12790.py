from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'model.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_givens_only = resolve('givens_only')
    l_0_title = resolve('title')
    l_0_text = resolve('text')
    l_0_model = resolve('model')
    l_0_describe = resolve('describe')
    l_0_dtypes = resolve('dtypes')
    l_0_chip = resolve('chip')
    l_0_devices = resolve('devices')
    l_0_any_hardware = resolve('any_hardware')
    l_0_bound = resolve('bound')
    l_0_earlier = resolve('earlier')
    l_0_given = resolve('given')
    l_0_hardware = resolve('hardware')
    l_0_steps = resolve('steps')
    l_0_left_out = resolve('left_out')
    l_0_warnings = resolve('warnings')
    l_0_verdicts = resolve('verdicts')
    l_0_steps_tex = missing
    try:
        t_1 = environment.filters['batch']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'batch' found.")
    try:
        t_2 = environment.filters['breakable']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'breakable' found.")
    try:
        t_3 = environment.filters['code']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'code' found.")
    try:
        t_4 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_5 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    pass
    l_0_steps_tex = context.vars['steps_tex'] = environment.get_template('steps.tex.j2', 'model.tex.j2')._get_default_module(context)
    context.exported_vars.discard('steps_tex')
    if (not (undefined(name='givens_only') if l_0_givens_only is missing else l_0_givens_only)):
        pass
        yield '\\subsection{'
        yield str(t_4((undefined(name='title') if l_0_title is missing else l_0_title)))
        yield '}\n'
    if (undefined(name='text') if l_0_text is missing else l_0_text):
        pass
        yield str(t_4((undefined(name='text') if l_0_text is missing else l_0_text)))
        yield '\n\n'
    if environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'doc'):
        pass
        yield str(t_2(t_4(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'doc'))))
        yield '\n\n'
    yield '\\paragraph{Given.} Model '
    yield str(t_3(environment.getattr((undefined(name='model') if l_0_model is missing else l_0_model), 'name')))
    yield ' ('
    yield str(t_4((undefined(name='describe') if l_0_describe is missing else l_0_describe)))
    yield '); dtypes: '
    yield str(t_4((undefined(name='dtypes') if l_0_dtypes is missing else l_0_dtypes)))
    if (undefined(name='chip') if l_0_chip is missing else l_0_chip):
        pass
        yield '; '
        yield str((undefined(name='devices') if l_0_devices is missing else l_0_devices))
        yield ' $\\times$ '
        yield str(t_4(environment.getattr((undefined(name='chip') if l_0_chip is missing else l_0_chip), 'title')))
        yield ' ('
        yield str(t_3(environment.getattr((undefined(name='chip') if l_0_chip is missing else l_0_chip), 'name')))
        yield ')'
    elif (undefined(name='any_hardware') if l_0_any_hardware is missing else l_0_any_hardware):
        pass
        yield '; '
        yield str((undefined(name='devices') if l_0_devices is missing else l_0_devices))
        yield ' device'
        yield str(('s' if ((undefined(name='devices') if l_0_devices is missing else l_0_devices) != 1) else cond_expr_undefined("the inline if-expression on line 14 in 'model.tex.j2' evaluated to false and no else section was defined.")))
    if (undefined(name='bound') if l_0_bound is missing else l_0_bound):
        pass
        yield '; bound: '
        yield str(t_4(t_5(context.eval_ctx, (undefined(name='bound') if l_0_bound is missing else l_0_bound), ', ')))
    yield '. Units: GB $= 10^9$ B and GiB $= 2^{30}$ B, both named where used.\n'
    if (undefined(name='earlier') if l_0_earlier is missing else l_0_earlier):
        pass
        yield "The model's symbols and values are those of the table of Problem "
        yield str(environment.getattr((undefined(name='earlier') if l_0_earlier is missing else l_0_earlier), 'number'))
        yield ' ('
        yield str(t_3(environment.getattr((undefined(name='earlier') if l_0_earlier is missing else l_0_earlier), 'id')))
        yield ')'
        if ((undefined(name='given') if l_0_given is missing else l_0_given) or (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware)):
            pass
            yield "; this problem's own values:"
        else:
            pass
            yield '.'
        yield '\n'
    yield '\n'
    if ((undefined(name='given') if l_0_given is missing else l_0_given) or (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware)):
        pass
        yield '{\\small\n'
        for l_1_rows in t_1((undefined(name='given') if l_0_given is missing else l_0_given), 16):
            _loop_vars = {}
            pass
            yield '\\noindent\\begin{tabularx}{\\linewidth}{@{}>{\\raggedright\\arraybackslash\\hsize=0.55\\hsize}X>{\\raggedright\\arraybackslash\\hsize=1.55\\hsize}X>{\\raggedright\\arraybackslash\\hsize=0.9\\hsize}X@{}}\n\\toprule\nsymbol & meaning & value \\\\\n\\midrule\n'
            for (l_2_s, l_2_meaning, l_2_value) in l_1_rows:
                _loop_vars = {}
                pass
                yield '$'
                yield str(l_2_s)
                yield '$ & '
                yield str(t_2(t_4(l_2_meaning)))
                yield ' & $'
                yield str(l_2_value)
                yield '$ \\\\\n'
            l_2_s = l_2_meaning = l_2_value = missing
            yield '\\bottomrule\n\\end{tabularx}\n'
        l_1_rows = missing
        if (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware):
            pass
            yield '\n\\smallskip\n\\noindent\\begin{tabularx}{\\linewidth}{@{}>{\\raggedright\\arraybackslash}X>{\\raggedright\\arraybackslash}X>{\\raggedright\\arraybackslash\\footnotesize}X@{}}\n\\toprule\nhardware & value & source \\\\\n\\midrule\n'
            for (l_1_name, l_1_s, l_1_value, l_1_source) in (undefined(name='hardware') if l_0_hardware is missing else l_0_hardware):
                _loop_vars = {}
                pass
                yield str(t_4(l_1_name))
                yield ', $'
                yield str(l_1_s)
                yield '$ & $'
                yield str(l_1_value)
                yield '$ & '
                yield str(t_4(l_1_source))
                yield ' \\\\\n'
            l_1_name = l_1_s = l_1_value = l_1_source = missing
            yield '\\bottomrule\n\\end{tabularx}\n'
        yield '\\par}\n'
    yield '\\medskip\n'
    if (not (undefined(name='givens_only') if l_0_givens_only is missing else l_0_givens_only)):
        pass
        l_1_loop = missing
        for l_1_step, l_1_loop in LoopContext((undefined(name='steps') if l_0_steps is missing else l_0_steps), undefined):
            _loop_vars = {}
            pass
            yield str(context.call(environment.getattr((undefined(name='steps_tex') if l_0_steps_tex is missing else l_0_steps_tex), 'step'), l_1_step, environment.getattr(l_1_loop, 'index'), table_first=True, narrow_notes=False, _loop_vars=_loop_vars))
        l_1_loop = l_1_step = missing
        if (undefined(name='left_out') if l_0_left_out is missing else l_0_left_out):
            pass
            yield '\nNot derived: '
            l_1_loop = missing
            for (l_1_key, l_1_why), l_1_loop in LoopContext((undefined(name='left_out') if l_0_left_out is missing else l_0_left_out), undefined):
                _loop_vars = {}
                pass
                yield str(t_3(l_1_key))
                yield ' ('
                yield str(t_4(l_1_why))
                yield ')'
                yield str(('; ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 56 in 'model.tex.j2' evaluated to false and no else section was defined.")))
            l_1_loop = l_1_key = l_1_why = missing
            yield '.\n'
        for l_1_w in (undefined(name='warnings') if l_0_warnings is missing else l_0_warnings):
            _loop_vars = {}
            pass
            yield '\n\\noindent\\fbox{\\parbox{\\dimexpr\\linewidth-2\\fboxsep-2\\fboxrule}{\\raggedright\\textbf{'
            yield str(t_4(l_1_w))
            yield '}}}\n'
        l_1_w = missing
        for l_1_v in (undefined(name='verdicts') if l_0_verdicts is missing else l_0_verdicts):
            _loop_vars = {}
            pass
            yield '\n{\\raggedright\\noindent\\textbf{'
            yield str(t_4(l_1_v))
            yield '}\\par}\n'
        l_1_v = missing

blocks = {}
debug_info = '2=59&3=61&4=64&6=66&7=68&10=70&11=72&14=75&15=100&16=103&20=115&23=118&28=122&29=126&34=135&41=138&42=141&50=153&51=156&52=159&54=161&56=165&58=175&60=179&62=182&64=186'