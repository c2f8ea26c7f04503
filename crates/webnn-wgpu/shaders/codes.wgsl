// Op codes: the value of the `OP` override picks one op of a domain file. Rust mirrors these
// numbers in `UnaryOp`/`BinaryOp` (src/kernel.rs); tests/naga.rs checks the two agree.

// Unary maps (unary_*.wgsl, `unary_op`).
const OP_ABS: u32 = 0u;
const OP_CEIL: u32 = 1u;
const OP_COS: u32 = 2u;
const OP_ERF: u32 = 3u;
const OP_EXP: u32 = 4u;
const OP_FLOOR: u32 = 5u;
const OP_LOG: u32 = 6u;
const OP_NEG: u32 = 7u;
const OP_RECIPROCAL: u32 = 8u;
const OP_ROUND_EVEN: u32 = 9u;
const OP_SIN: u32 = 10u;
const OP_SIGN: u32 = 11u;
const OP_SQRT: u32 = 12u;
const OP_TAN: u32 = 13u;
const OP_RELU: u32 = 14u;
const OP_SIGMOID: u32 = 15u;
const OP_TANH: u32 = 16u;
const OP_GELU: u32 = 17u;
const OP_HARD_SWISH: u32 = 18u;
const OP_SOFTPLUS: u32 = 19u;
const OP_SOFTSIGN: u32 = 20u;
const OP_ELU: u32 = 21u;
const OP_HARD_SIGMOID: u32 = 22u;
const OP_LEAKY_RELU: u32 = 23u;
const OP_LINEAR: u32 = 24u;
const OP_CLAMP: u32 = 25u;
// Unary predicates (`unary_test`), uint8 0/1 results.
const OP_IS_NAN: u32 = 26u;
const OP_IS_INFINITE: u32 = 27u;
const OP_LOGICAL_NOT: u32 = 28u;

// Binary arithmetic (binary_*.wgsl, `binary_op`).
const OP_ADD: u32 = 0u;
const OP_SUB: u32 = 1u;
const OP_MUL: u32 = 2u;
const OP_DIV: u32 = 3u;
const OP_MAX: u32 = 4u;
const OP_MIN: u32 = 5u;
const OP_POW: u32 = 6u;
const OP_PRELU: u32 = 16u;
// Binary predicates (`binary_test`), uint8 0/1 results.
const OP_EQUAL: u32 = 7u;
const OP_NOT_EQUAL: u32 = 8u;
const OP_GREATER: u32 = 9u;
const OP_GREATER_OR_EQUAL: u32 = 10u;
const OP_LESSER: u32 = 11u;
const OP_LESSER_OR_EQUAL: u32 = 12u;
const OP_LOGICAL_AND: u32 = 13u;
const OP_LOGICAL_OR: u32 = 14u;
const OP_LOGICAL_XOR: u32 = 15u;

// Folds of the row kernels (reduce_*.wgsl): the ten reductions, which pooling reuses (max,
// mean for average, l2), softmax and the normalizations (max, sum).
const OP_REDUCE_SUM: u32 = 0u;
const OP_REDUCE_MEAN: u32 = 1u;
const OP_REDUCE_L1: u32 = 2u;
const OP_REDUCE_L2: u32 = 3u;
const OP_REDUCE_LOG_SUM: u32 = 4u;
const OP_REDUCE_LOG_SUM_EXP: u32 = 5u;
const OP_REDUCE_MAX: u32 = 6u;
const OP_REDUCE_MIN: u32 = 7u;
const OP_REDUCE_PRODUCT: u32 = 8u;
const OP_REDUCE_SUM_SQUARE: u32 = 9u;
