// The C++ interface: templates in namespace gshmem underneath the C-style
// names (gshmem::wait_until(T*, cmp, T), gshmem::atomic ops with explicit
// memory order and scope, ...). Includes every public header.
#pragma once

#include <gshmem/gshmemx.h>
