/* skb runtime: find, verify, load and run the kernels of an installed operator library.
 *
 * An op call is described the way op statistics record it (one JSON object: op_type, inputs,
 * outputs, attrs, ...). Its lookup key is the SHA-256 of the same canonical signature the
 * generator names kernels by, so a call finds exactly the static kernel built for it. With no
 * static kernel the runtime falls back to the dynamic kernel of the same op and dtypes, when one
 * is installed. A kernel's bytes are checked against the index's sha256 before it is loaded, once
 * per process.
 *
 * A library of cuda kernels (the cuda toolchain's cubins) needs the NVIDIA driver, which the
 * runtime opens when it opens such a library (dlopen of libcuda.so.1, or of $SKB_CUDA_DRIVER):
 * skb has no build or link dependency on CUDA. Without a driver or a GPU, skb_runtime_open
 * fails with SKB_ERR_UNSUPPORTED, and skb_last_error names what is missing. Cuda kernels run on
 * device 0 as the driver numbers them (CUDA_VISIBLE_DEVICES chooses it), in its primary context,
 * the one the CUDA runtime API and the frameworks use. With SKB_CUDA_DEPENDENT_LAUNCH=on, a static
 * kernel built for sm_90 or later is launched as a programmatic dependent launch: its blocks start
 * while the grid before it on the stream finishes, and wait for it before they touch memory.
 *
 * Thread safety: every function may be called from any thread; an skb_op stays valid (and its
 * kernel loaded) until skb_op_free, even across skb_runtime_reload and skb_runtime_close. */
#ifndef SKB_RUNTIME_H
#define SKB_RUNTIME_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skb_runtime skb_runtime;
typedef struct skb_op skb_op;

/** Status codes. */
enum {
  SKB_OK = 0,
  SKB_ERR_INVALID = 1,    /* bad argument, an op description that is not a valid record, or one whose
                             shapes contradict its op (e.g. a matmul's k under its transposes) */
  SKB_ERR_NOT_FOUND = 2,  /* no static and no dynamic kernel for this call */
  SKB_ERR_INTEGRITY = 3,  /* a kernel's bytes do not match the index: refused, never loaded */
  SKB_ERR_LOAD = 4,       /* the library, its index or a kernel could not be read or loaded */
  SKB_ERR_KERNEL = 5,     /* the kernel ran and returned an error */
  SKB_ERR_UNSUPPORTED = 6 /* skb's kernels do not compute what this call asks (an attribute or value
                             they do not implement, or a layout a dynamic kernel cannot index):
                             refused, never run by a kernel that would compute something else */
};

/** Which kernel an skb_op runs. */
enum { SKB_KERNEL_STATIC = 1, SKB_KERNEL_DYNAMIC = 2 };

/** Opens the operator library installed under install_path (the installer's --install-path;
 * NULL means $SKB_INSTALL_PATH) for one SoC (NULL: the only one installed). Reads its index. */
int skb_runtime_open(const char* install_path, const char* soc, skb_runtime** out);

/** Re-reads the index, so that packages installed since open are found and those removed are no
 * longer served. Ops already resolved keep running the kernel they resolved to. On failure the
 * runtime keeps the index it had. */
int skb_runtime_reload(skb_runtime* rt);

/** Kernels the index lists, static and dynamic. */
size_t skb_runtime_kernel_count(const skb_runtime* rt);

/** The message of the last failed call on this thread; a call that succeeds makes it "". */
const char* skb_last_error(void);

void skb_runtime_close(skb_runtime* rt);

/** Resolves an op call (an op-statistics record as JSON text) to a kernel, verified and loaded.
    A call whose shapes contradict its op is refused with SKB_ERR_INVALID, whatever library
    the kernel came from. */
int skb_runtime_find(skb_runtime* rt, const char* op_json, skb_op** out);

/** Resolves an op call to the dynamic kernel of its op and dtypes even when a static kernel
 * serves it: to compare the two, or to check a dynamic kernel on calls the dump saw. On a GPU, a
 * MatMulV2 or BatchMatMulV2 call's dynamic path is cuBLASLt where it opens (SKB_CUBLASLT): the
 * op is then of kind SKB_KERNEL_DYNAMIC and named "cublasLt". */
int skb_runtime_find_dynamic(skb_runtime* rt, const char* op_json, skb_op** out);

/** Explains which kernel an op call gets, as one line of text, into buf (at most size bytes,
 * always NUL-terminated when size > 0; *needed, when not NULL, gets the whole length without
 * the NUL). For a call that finds its static kernel: that kernel. Otherwise: the installed static
 * kernel of the same op nearest to the call and the first field of the signature that differs,
 * e.g. "/inputs/0/shape/1: installed 2048, called 2047", so a user learns which shapes the dump
 * never saw. It reads the library's kernel descriptions only then: skb_runtime_find pays nothing
 * for it. */
int skb_runtime_explain(skb_runtime* rt, const char* op_json, char* buf, size_t size, size_t* needed);

/** Where a kernel runs, and so whose memory skb_op_run and skb_op_launch take. */
enum { SKB_DEVICE_HOST = 1, SKB_DEVICE_CUDA = 2 };

/** Runs the kernel on buffers laid out as the record describes (one pointer per input and output
 * slot, NULL for an absent optional input; for a tensor list, such as ConcatD's x, the address of
 * an array of its tensors' pointers), in the memory of the kernel's device:
 * - SKB_DEVICE_HOST: host memory;
 * - SKB_DEVICE_CUDA: device memory of the current CUDA device's primary context (CUdeviceptr
 *   values, as cudaMalloc and the frameworks' allocators give). The kernel runs on the default
 *   stream; the call returns when it has finished, and a CUDA error becomes SKB_ERR_KERNEL with
 *   the driver's message. */
int skb_op_run(const skb_op* op, const void* const* inputs, void* const* outputs);

/** Runs the kernel on host buffers whatever its device: a cuda kernel's inputs are copied to
 * device memory the call allocates, and its outputs copied back, before it returns. For a host
 * kernel it is skb_op_run. */
int skb_op_run_host(const skb_op* op, const void* const* inputs, void* const* outputs);

/** Queues a cuda kernel on `stream` (a CUstream or cudaStream_t; NULL: the default stream) on
 * device buffers, and returns without waiting for it: an error of the kernel itself shows at the
 * stream's next synchronization. A host kernel runs before the call returns. */
int skb_op_launch(const skb_op* op, const void* const* inputs, void* const* outputs, void* stream);

/** SKB_DEVICE_HOST or SKB_DEVICE_CUDA. */
int skb_op_device(const skb_op* op);

/** SKB_KERNEL_STATIC or SKB_KERNEL_DYNAMIC. */
int skb_op_kind(const skb_op* op);

/** The kernel's name (<OpType>_<hash>, or "cublasLt") and the package it comes from. */
const char* skb_op_kernel_name(const skb_op* op);
const char* skb_op_package(const skb_op* op);

/** Why a call that has a static kernel runs its dynamic kernel, "" otherwise: the static kernel
 * was measured slower than the dynamic one on this machine class (`skb bench`, kept in the
 * library's payoff/<class>.json), so it is not served; SKB_PAYOFF=off serves it. An evidence
 * file that is not valid is refused, said once on stderr, and changes nothing served. */
const char* skb_op_why(const skb_op* op);

void skb_op_free(skb_op* op);

/* Recording misses and counting calls, for the whole process.
 *
 * Each distinct call skb_runtime_find served with no static kernel (a dynamic fallback, or no
 * kernel at all; not one refused as unsupported) is written once per process as an op record,
 * where skb-generate and skb-package -p read the frameworks' records:
 *   DIR/ts<YYYYmmddHHMMSSffffff>_pid<pid>_outputs/<pid>_opcompile/<op>_<dtype>_<format>_<dims>_<N>.json
 * so that `skb-package -p DIR --base OLD.run` builds exactly the kernels the run missed. Files are
 * written atomically, at skb_runtime_record_flush, at stop, at exit and every few seconds (a
 * process killed -9 loses at most the last interval). SKB_RECORD_MISSES=DIR starts it when the
 * runtime is first used (SKB_RECORD_MISSES_MAX: at most that many distinct calls are kept, the
 * rest counted, 4096 by default; SKB_RECORD_MISSES_INTERVAL: seconds between writes, 5). A
 * folder that cannot be written costs one warning on stderr: calls still run. */

/** Records misses into dir (NULL: $SKB_RECORD_MISSES) from now on. */
int skb_runtime_record_start(const char* dir);

/** Writes what is pending and stops recording. */
int skb_runtime_record_stop(void);

/** Writes what is pending now, and prints the counts on stderr in one line. */
int skb_runtime_record_flush(void);

/** Calls skb_runtime_find resolved in this process, by outcome, and the misses recorded. */
typedef struct skb_call_counts {
  uint64_t static_hits;       /* served by a static kernel */
  uint64_t dynamic_fallbacks; /* served by the dynamic kernel of their op and dtypes */
  uint64_t no_kernel;         /* no kernel (SKB_ERR_NOT_FOUND, SKB_ERR_UNSUPPORTED) */
  uint64_t recorded;          /* records of missed calls written */
  uint64_t past_cap;          /* distinct missed calls not recorded: past the cap */
} skb_call_counts;

int skb_runtime_counts(skb_call_counts* out);

/** The counts per op and kernel, one line each ("MatMulV2 MatMulV2_0f3c...: 12 static, 0 dynamic,
 * 0 no kernel"; "-" for calls with no kernel), into buf as skb_runtime_explain fills it. */
int skb_runtime_counts_text(char* buf, size_t size, size_t* needed);

/** Starts the counts again. */
void skb_runtime_counts_reset(void);

#ifdef __cplusplus
}
#endif
#endif
