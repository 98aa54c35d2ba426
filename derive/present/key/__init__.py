"""An answer key's documents: the summary rows, figures, chapters and the files they make.

The pipeline (:mod:`derive.pipeline.key`) derives each problem and hands the results here;
nothing in this package analyses an operator problem itself.
"""
