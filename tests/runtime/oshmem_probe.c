/* The smallest OpenSHMEM program: no gshmem, no GPU. The OpenSHMEM tests run
 * it first (oshmem_probe.sh) to tell a machine whose OpenSHMEM crashes by
 * itself from a crash of gshmem's. It prints "oshmem probe: ok" on PE 0 when
 * init, a symmetric allocation, a put/get round and finalize all worked. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int *slot = (int *)shmem_malloc(sizeof(int));
  if (!slot) {
    fprintf(stderr, "oshmem probe: PE %d: shmem_malloc failed\n", me);
    return 1;
  }
  *slot = -1;
  shmem_barrier_all();
  shmem_int_p(slot, me, (me + 1) % n); /* each PE writes its number to the next */
  shmem_barrier_all();
  const int expected = (me + n - 1) % n;
  const int seen = shmem_int_g(slot, me);
  shmem_barrier_all();
  shmem_free(slot);
  shmem_finalize();
  if (seen != expected) {
    fprintf(stderr, "oshmem probe: PE %d: read %d, expected %d\n", me, seen, expected);
    return 1;
  }
  if (me == 0) printf("oshmem probe: ok (%d PEs)\n", n);
  return 0;
}
