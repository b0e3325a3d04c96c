"""The matmul calls that scripts/gpu-check.sh times against cuBLAS and sweeps over candidate tiles:
the sizes of a served model's projections and the square ones a GEMM is judged by, one whose rows
are an odd number of elements (x2 transposed: 1001 columns), which no tile stores 16 bytes at once,
and the example dump's 16 x 128 x 32, a product of one block whose time is its latency."""
from make_dump import attr, record, tensor


def mm(dt, m, k, n, op="MatMulV2", batch=(), ta=False, tb=False, bias=False):
    """A MatMulV2 (or BatchMatMulV2 over `batch`) record of y[m, n] = x1[m, k] @ x2[k, n], each
    operand stored transposed when ta / tb says so, with a bias of n elements when asked."""
    names = ("transpose_x1", "transpose_x2") if op == "MatMulV2" else ("adj_x1", "adj_x2")
    b = list(batch)
    x1 = tensor("x1", 0, dt, b + ([k, m] if ta else [m, k]))
    x2 = tensor("x2", 1, dt, b + ([n, k] if tb else [k, n]))
    return record(op, [x1, x2, tensor("bias", 2, dt, [n]) if bias else None, None], [tensor("y", 0, dt, b + [m, n])],
                  [attr(names[0], 0, "bool", ta), attr(names[1], 1, "bool", tb)])


def sweep():
    return [mm("float16", 256, 1024, 1024), mm("bfloat16", 256, 1024, 1024), mm("float16", 128, 4096, 1024),
            mm("bfloat16", 128, 4096, 1024), mm("float16", 4096, 4096, 4096), mm("bfloat16", 4096, 4096, 4096),
            mm("float", 512, 512, 512), mm("float", 4096, 4096, 4096),
            mm("float16", 128, 64, 128, "BatchMatMulV2", (16,)), mm("float16", 1024, 1024, 1024, tb=True),
            mm("float16", 1000, 1032, 520, ta=True), mm("bfloat16", 384, 256, 320, "BatchMatMulV2", (4,), ta=True, tb=True),
            mm("float16", 512, 1024, 1001, tb=True), mm("float16", 16, 128, 32)]
