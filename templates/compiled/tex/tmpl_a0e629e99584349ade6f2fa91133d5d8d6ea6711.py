from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'layout.tex.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_align = l_0_table = missing
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
        t_3 = environment.filters['breaksum']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'breaksum' found.")
    try:
        t_4 = environment.filters['colwidths']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'colwidths' found.")
    try:
        t_5 = environment.filters['e']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'e' found.")
    try:
        t_6 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_7 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_8 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_9 = environment.filters['narrow']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'narrow' found.")
    try:
        t_10 = environment.filters['rich']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'rich' found.")
    try:
        t_11 = environment.tests['wide']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No test named 'wide' found.")
    try:
        t_12 = environment.tests['widetable']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No test named 'widetable' found.")
    pass
    def macro(l_1_lines):
        t_13 = []
        if l_1_lines is missing:
            l_1_lines = undefined("parameter 'lines' was not provided", name='lines')
        pass
        t_13.append(
            '\\begin{align*}\n',
        )
        l_2_loop = missing
        for l_2_l, l_2_loop in LoopContext(l_1_lines, undefined):
            _loop_vars = {}
            pass
            if t_11(environment.getattr(l_2_l, 'lhs')):
                pass
                t_13.extend((
                    '&\\phantom{=}\\ ',
                    str(t_3(environment.getattr(l_2_l, 'lhs'))),
                    ' \\\\\n',
                ))
            else:
                pass
                t_13.extend((
                    str(environment.getattr(l_2_l, 'lhs')),
                    ' ',
                ))
            t_13.extend((
                '&',
                str(environment.getattr(l_2_l, 'relation')),
                ' ',
                str(t_3(environment.getitem(environment.getattr(l_2_l, 'forms'), 0))),
            ))
            for l_3_f in environment.getattr(l_2_l, 'forms')[1:]:
                _loop_vars = {}
                pass
                t_13.extend((
                    ' \\\\\n  &= ',
                    str(t_3(l_3_f)),
                ))
            l_3_f = missing
            if environment.getattr(l_2_l, 'approx'):
                pass
                t_13.extend((
                    ' \\\\\n  &\\approx ',
                    str(environment.getattr(l_2_l, 'approx')),
                ))
            t_13.extend((
                str((' \\\\' if (not environment.getattr(l_2_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 10 in 'layout.tex.j2' evaluated to false and no else section was defined."))),
                '\n',
            ))
        l_2_loop = l_2_l = missing
        t_13.append(
            '\\end{align*}\n',
        )
        return concat(t_13)
    context.exported_vars.add('align')
    context.vars['align'] = l_0_align = Macro(environment, macro, 'align', ('lines',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_rows, l_1_fold_wide, l_1_widths, l_1_stretch, l_1_caption):
        t_14 = []
        l_1_header = resolve('header')
        l_1_merged = resolve('merged')
        if l_1_rows is missing:
            l_1_rows = undefined("parameter 'rows' was not provided", name='rows')
        if l_1_fold_wide is missing:
            l_1_fold_wide = True
        if l_1_widths is missing:
            l_1_widths = None
        if l_1_stretch is missing:
            l_1_stretch = None
        if l_1_caption is missing:
            l_1_caption = None
        pass
        if (l_1_fold_wide and t_12(l_1_rows)):
            pass
            t_14.append(
                '\\begin{itemize}\\raggedright\n',
            )
            l_2_loop = missing
            for l_2_row, l_2_loop in LoopContext(l_1_rows[1:], undefined):
                _loop_vars = {}
                pass
                t_14.extend((
                    '\\item ',
                    str(t_10(environment.getitem(l_2_row, 0))),
                ))
                l_3_loop = missing
                for l_3_c, l_3_loop in LoopContext(l_2_row[1:], undefined):
                    _loop_vars = {}
                    pass
                    t_14.extend((
                        '; ',
                        str(t_5(environment.getitem(environment.getitem(l_1_rows, 0), environment.getattr(l_3_loop, 'index')))),
                        ' ',
                        str(t_10(l_3_c)),
                    ))
                l_3_loop = l_3_c = missing
            l_2_loop = l_2_row = missing
            t_14.append(
                '\\end{itemize}\n',
            )
        else:
            pass
            l_1_header = environment.getitem(l_1_rows, 0)
            l_1_merged = ((t_7((undefined(name='header') if l_1_header is missing else l_1_header)) > 2) and (environment.getitem((undefined(name='header') if l_1_header is missing else l_1_header), 1) == 'operator'))
            l_1_widths = (l_1_widths or t_4((undefined(name='header') if l_1_header is missing else l_1_header)))
            t_14.append(
                '\\par\n',
            )
            l_2_loop = missing
            for l_2_chunk, l_2_loop in LoopContext(t_1(l_1_rows[1:], 16), undefined):
                _loop_vars = {}
                pass
                t_14.extend((
                    '{\\scriptsize\\setlength{\\tabcolsep}{',
                    str(('1pt' if (t_7(l_1_widths) > 6) else '2pt')),
                    '}',
                ))
                if l_1_stretch:
                    pass
                    t_14.extend((
                        '\\renewcommand{\\arraystretch}{',
                        str(l_1_stretch),
                        '}',
                    ))
                t_14.append(
                    '\n\\noindent\\begin{tabularx}{\\linewidth}{@{}',
                )
                for l_3_w in l_1_widths:
                    _loop_vars = {}
                    pass
                    t_14.extend((
                        '>{\\raggedright\\arraybackslash\\hsize=',
                        str(l_3_w),
                        '\\hsize}X',
                    ))
                l_3_w = missing
                t_14.append(
                    '@{}}\n',
                )
                if (l_1_caption and environment.getattr(l_2_loop, 'first')):
                    pass
                    t_14.extend((
                        '\\multicolumn{',
                        str(t_7(l_1_widths)),
                        '}{@{}>{\\raggedright\\arraybackslash}p{\\linewidth}@{}}{\\footnotesize ',
                        str(t_5(l_1_caption)),
                        '} \\\\\n',
                    ))
                t_14.append(
                    '\\toprule\n',
                )
                if (undefined(name='merged') if l_1_merged is missing else l_1_merged):
                    pass
                    t_14.extend((
                        str(t_5(environment.getitem((undefined(name='header') if l_1_header is missing else l_1_header), 0))),
                        ' (',
                        str(t_5(environment.getitem((undefined(name='header') if l_1_header is missing else l_1_header), 1))),
                        ') & ',
                        str(t_6(context.eval_ctx, t_8(context, (undefined(name='header') if l_1_header is missing else l_1_header)[2:], 'e'), ' & ')),
                    ))
                else:
                    pass
                    t_14.append(
                        str(t_6(context.eval_ctx, t_8(context, (undefined(name='header') if l_1_header is missing else l_1_header), 'e'), ' & ')),
                    )
                t_14.append(
                    ' \\\\\n\\midrule\n',
                )
                l_3_loop = missing
                for l_3_row, l_3_loop in LoopContext(l_2_chunk, undefined):
                    _loop_vars = {}
                    pass
                    if (undefined(name='merged') if l_1_merged is missing else l_1_merged):
                        pass
                        t_14.extend((
                            str(t_2(t_10(environment.getitem(l_3_row, 0)))),
                            ' (',
                            str(t_2(t_10(environment.getitem(l_3_row, 1)))),
                            ') & ',
                        ))
                        l_4_loop = missing
                        for l_4_c, l_4_loop in LoopContext(l_3_row[2:], undefined):
                            _loop_vars = {}
                            pass
                            t_14.extend((
                                str(t_9(l_4_c)),
                                str((' & ' if (not environment.getattr(l_4_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 43 in 'layout.tex.j2' evaluated to false and no else section was defined."))),
                            ))
                        l_4_loop = l_4_c = missing
                    else:
                        pass
                        t_14.append(
                            str(t_2(t_9(environment.getitem(l_3_row, 0)))),
                        )
                        for l_4_c in l_3_row[1:]:
                            _loop_vars = {}
                            pass
                            t_14.extend((
                                ' & ',
                                str(t_9(l_4_c)),
                            ))
                        l_4_c = missing
                    t_14.append(
                        ' \\\\\n',
                    )
                l_3_loop = l_3_row = missing
                t_14.append(
                    '\\bottomrule\n\\end{tabularx}\\par}\n',
                )
            l_2_loop = l_2_chunk = missing
        return concat(t_14)
    context.exported_vars.add('table')
    context.vars['table'] = l_0_table = Macro(environment, macro, 'table', ('rows', 'fold_wide', 'widths', 'stretch', 'caption'), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '4=84&6=93&7=96&8=106&9=120&10=127&14=140&15=155&19=161&20=166&25=185&26=186&27=187&31=192&33=197&34=210&35=222&37=226&40=234&42=252&43=255'