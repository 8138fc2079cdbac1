/**
 * Parentheses, function calls, CASE, NOT, unary minus, IN lists and WHERE filters each
 * open one nesting level. The cap keeps the recursive-descent parser far from the
 * JavaScript stack limit whatever the input.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Long operator chains (`a + b + c ...`) are parsed iteratively but produce a tree as
 * tall as the chain. Capping the height lets the checker, the printer and any consumer
 * walk trees recursively without risking a stack overflow.
 */
export const MAX_TREE_HEIGHT = 1000;
