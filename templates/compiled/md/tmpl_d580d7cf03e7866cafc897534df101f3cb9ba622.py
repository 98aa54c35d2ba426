from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'steps.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_line = l_0_table = l_0_step = missing
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
        t_3 = environment.filters['rich']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'rich' found.")
    pass
    def macro(l_1_l):
        t_4 = []
        if l_1_l is missing:
            l_1_l = undefined("parameter 'l' was not provided", name='l')
        pass
        t_4.extend((
            '$$',
            str(environment.getattr(l_1_l, 'lhs')),
            ' ',
            str(environment.getattr(l_1_l, 'relation')),
            ' ',
            str(t_2(context.eval_ctx, environment.getattr(l_1_l, 'forms'), ' = ')),
        ))
        if environment.getattr(l_1_l, 'approx'):
            pass
            t_4.extend((
                ' \\approx ',
                str(environment.getattr(l_1_l, 'approx')),
            ))
        t_4.append(
            '$$\n',
        )
        return concat(t_4)
    context.exported_vars.add('line')
    context.vars['line'] = l_0_line = Macro(environment, macro, 'line', ('l',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_rows):
        t_5 = []
        if l_1_rows is missing:
            l_1_rows = undefined("parameter 'rows' was not provided", name='rows')
        pass
        t_5.extend((
            '| ',
            str(t_2(context.eval_ctx, environment.getitem(l_1_rows, 0), ' | ')),
            ' |\n|',
        ))
        for l_2_h in environment.getitem(l_1_rows, 0):
            _loop_vars = {}
            pass
            t_5.append(
                '---|',
            )
        l_2_h = missing
        t_5.append(
            '\n',
        )
        l_2_loop = missing
        for l_2_row, l_2_loop in LoopContext(l_1_rows[1:], undefined):
            _loop_vars = {}
            pass
            t_5.append(
                '| ',
            )
            l_3_loop = missing
            for l_3_c, l_3_loop in LoopContext(l_2_row, undefined):
                _loop_vars = {}
                pass
                t_5.extend((
                    str(t_3(l_3_c)),
                    str((' | ' if (not environment.getattr(l_3_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 12 in 'steps.md.j2' evaluated to false and no else section was defined."))),
                ))
            l_3_loop = l_3_c = missing
            t_5.append(
                ' |\n',
            )
        l_2_loop = l_2_row = missing
        t_5.append(
            '\n',
        )
        return concat(t_5)
    context.exported_vars.add('table')
    context.vars['table'] = l_0_table = Macro(environment, macro, 'table', ('rows',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_step, l_1_index, l_1_level, l_1_table_first):
        t_6 = []
        if l_1_step is missing:
            l_1_step = undefined("parameter 'step' was not provided", name='step')
        if l_1_index is missing:
            l_1_index = undefined("parameter 'index' was not provided", name='index')
        if l_1_level is missing:
            l_1_level = undefined("parameter 'level' was not provided", name='level')
        if l_1_table_first is missing:
            l_1_table_first = False
        pass
        t_6.extend((
            '\n',
            str(('#' * (l_1_level + 1))),
            ' Step ',
            str(l_1_index),
            ' — ',
            str(environment.getattr(l_1_step, 'heading')),
            '\n\n*Rule: ',
            str(t_1(environment.getattr(l_1_step, 'rule'))),
            '.* ',
            str(t_3(environment.getattr(l_1_step, 'reason'))),
            '\n\n',
        ))
        if (l_1_table_first and environment.getattr(l_1_step, 'table')):
            pass
            t_6.append(
                str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_step, 'table'))),
            )
        for l_2_l in environment.getattr(l_1_step, 'lines'):
            _loop_vars = {}
            pass
            t_6.extend((
                str(context.call((undefined(name='line') if l_0_line is missing else l_0_line), l_2_l, _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_l = missing
        if (environment.getattr(l_1_step, 'table') and (not l_1_table_first)):
            pass
            t_6.append(
                str(context.call((undefined(name='table') if l_0_table is missing else l_0_table), environment.getattr(l_1_step, 'table'))),
            )
        for l_2_n in environment.getattr(l_1_step, 'notes'):
            _loop_vars = {}
            pass
            t_6.extend((
                '- ',
                str(t_3(l_2_n)),
                '\n',
            ))
        l_2_n = missing
        return concat(t_6)
    context.exported_vars.add('step')
    context.vars['step'] = l_0_step = Macro(environment, macro, 'step', ('step', 'index', 'level', 'table_first'), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '4=30&5=37&7=55&8=62&9=65&11=76&12=83&16=101&18=114&20=120&22=125&23=128&25=130&26=134&28=138&29=141&31=143&32=148'