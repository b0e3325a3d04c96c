/* A stand-in for libcuda.so.1 on a machine that has the driver but no GPU: cuInit answers
 * CUDA_ERROR_NO_DEVICE (100) as the real driver does there. */
typedef int CUresult;

extern "C" {

CUresult cuInit(unsigned flags) {
  (void)flags;
  return 100;
}

CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}

CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == 100 ? "no CUDA-capable device is detected" : "unknown error";
  return 0;
}

}  // extern "C"
