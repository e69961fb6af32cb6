# Rewrites clang's textual LLVM IR of gshmem_triton.cu into a library that
# Triton links into its kernels (cmake -P, IN=<.ll> OUT=<.ll>):
#  - the module flag nvvm-reflect-ftz goes: clang always sets it (override
#    behaviour), and so does Triton, to its own choice; the link refuses
#    two override values that differ. The library has no float code that
#    reads it, so the kernel's value stands.
#  - the functions lose their target-cpu / target-features attributes (as
#    libdevice has none), so that they inline into kernels for any target.
#  - @llvm.compiler.used goes: clang keeps every __device__ variable there
#    for host-side registration, which does not exist here; without it the
#    link takes only the variables the kernel's calls reach.
#  - what LLVM 22.1 added and the LLVM snapshot of an older Triton cannot
#    parse goes (Triton 3.6's "22.0.0git"): the nocreateundeforpoison
#    attribute of intrinsics (an optimisation hint) and the
#    !llvm.errno.tbaa named metadata (alias information for errno, which
#    device code has none of).
file(READ "${IN}" ir)
string(REPLACE " nocreateundeforpoison" "" ir "${ir}")
string(REGEX REPLACE "\n!llvm\\.errno\\.tbaa = [^\n]*" "" ir "${ir}")
string(REGEX REPLACE "!{i32 [0-9]+, !\"nvvm-reflect-ftz\", i32 [0-9]+}" "!{i32 2, !\"gshmem-triton\", i32 1}" ir "${ir}")
string(REGEX REPLACE " \"target-cpu\"=\"[^\"]*\"" "" ir "${ir}")
string(REGEX REPLACE " \"target-features\"=\"[^\"]*\"" "" ir "${ir}")
string(REGEX REPLACE "\n@llvm\\.compiler\\.used = [^\n]*" "" ir "${ir}")
if(ir MATCHES "nvvm-reflect-ftz|llvm\\.compiler\\.used|\"target-cpu\"|nocreateundeforpoison|llvm\\.errno\\.tbaa")
  message(FATAL_ERROR "rewrite_bitcode_ir: ${IN} still has what the rewrite removes")
endif()
file(WRITE "${OUT}" "${ir}")
