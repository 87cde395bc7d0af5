/* read-into.c DEVICE POOL_MB THREADS SECONDS [huge]: THREADS threads of 16 KiB
 * O_DIRECT random preads on DEVICE, each into its own buffer (POOL_MB 0) or into a
 * random 16 KiB slot of a POOL_MB pool (4 KiB pages, or transparent huge pages
 * with 'huge'); prints the reads' p10/p50/p90 as the caller saw them.
 * gcc -O2 -pthread -o read-into read-into.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static int fd; static long devsz; static double secs; static char *pool; static long poolsz; static int nt;
static unsigned long *lat[16]; static long nlat[16];
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void *run(void *a){ long id=(long)a; unsigned s=id*7919+1; char *own=pool+id*16384;
  double end=now()+secs; lat[id]=malloc(sizeof(long)*4000000); long n=0;
  while(now()<end){ long off=((long)rand_r(&s)*(long)rand_r(&s))%(devsz/16384)*16384;
    char *b = poolsz>16384*16 ? pool+((long)rand_r(&s)%(poolsz/16384))*16384 : own;
    struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0);
    if(pread(fd,b,16384,off)!=16384){perror("pread");exit(1);}
    clock_gettime(CLOCK_MONOTONIC,&t1); lat[id][n++]=(t1.tv_sec-t0.tv_sec)*1000000000L+t1.tv_nsec-t0.tv_nsec; }
  nlat[id]=n; return 0;}
static int cmp(const void*a,const void*b){unsigned long x=*(unsigned long*)a,y=*(unsigned long*)b;return x<y?-1:x>y;}
int main(int c,char**v){ fd=open(v[1],O_RDONLY|O_DIRECT); devsz=lseek(fd,0,SEEK_END); poolsz=atol(v[2])<<20; nt=atoi(v[3]); secs=atof(v[4]);
  int huge = c>5 && !strcmp(v[5],"huge");
  long sz = poolsz>16384*16?poolsz:16384*16; pool=mmap(0,sz,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  madvise(pool,sz,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE); memset(pool,1,sz);
  pthread_t t[16]; for(long i=0;i<nt;i++)pthread_create(&t[i],0,run,(void*)i); for(int i=0;i<nt;i++)pthread_join(t[i],0);
  long tot=0; for(int i=0;i<nt;i++)tot+=nlat[i]; unsigned long *all=malloc(tot*8); long k=0; for(int i=0;i<nt;i++){memcpy(all+k,lat[i],nlat[i]*8);k+=nlat[i];}
  qsort(all,tot,8,cmp); printf("pool %ldMB %s n=%ld p10=%.1f p50=%.1f p90=%.1f us\n", poolsz>>20, huge?"huge":"4k", tot, all[tot/10]/1e3, all[tot/2]/1e3, all[tot*9/10]/1e3); return 0;}
