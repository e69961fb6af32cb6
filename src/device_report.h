// The host half of device failure reports (include/gshmem/detail/
// device_report.h): the mapped report area, the reporter thread that prints
// what kernels recorded, and the line each record becomes.
//
// A kernel that records a failure usually traps right after, and the CUDA
// context is then unusable; the area is host memory, so the host reads it
// whatever the device's state. Each recorded slot is printed once, to
// stderr (like the device printf it replaces, whatever GSHMEM_DEBUG says),
// by whichever comes first: the reporter thread (it looks every 20 ms),
// gshmem_finalize, or the exit of the process.
#pragma once

#include <gshmem/detail/config.h>
#include <gshmem/detail/device_report.h>

#include <cstddef>
#include <string>

namespace gshmemi {

// The line a slot stands for, without a newline ("gshmem: PE 1: routine: ...").
GSHMEM_API std::string format_device_report(const gshmemi_device_report_slot_t &slot);

// Prints every slot of `area` that is ready and not printed yet, then how
// many failures found no slot; returns how many lines it printed. `printed`
// (GSHMEMI_DEVICE_REPORT_SLOTS flags) and `further_printed` remember what was
// printed; `out` is where (stderr when NULL). Safe from several threads at
// once (a process-wide lock).
GSHMEM_API int print_device_reports(const gshmemi_device_report_t *area, bool *printed, unsigned *further_printed,
                                    std::FILE *out = nullptr);

// The runtime's area and reporter: open() maps the area (device_area is
// what the device state publishes) and starts the thread; close() prints
// what is left and stops it (the area stays mapped when the device may
// still write it: a trapped kernel leaves the context unusable for
// cudaFreeHost). One at a time per process.
GSHMEM_API int device_reports_open(gshmemi_device_report_t **device_area);
GSHMEM_API void device_reports_close(bool release_memory);

}  // namespace gshmemi
