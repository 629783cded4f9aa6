// Fork-to-exit timer for BENCHMARKS.md's fifth-session figures: runs COMMAND N times (stdout to
// /dev/null) and prints one line `END <microseconds>` per run, fork to reap, on stderr.
//   gcc -O2 -o /tmp/forkexec tools/forkexec_timer.c
//   /tmp/forkexec 200 target/x86_64-unknown-linux-musl/release/isabridge disasm F 2>&1 |
//     awk '{print $2}' | sort -n     # then take the median / tenth percentile
// The child also gets T0 (the fork time in ns, CLOCK_MONOTONIC) in its environment, for
// timestamps taken inside an instrumented build.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
static unsigned long long now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000ull+t.tv_nsec;}
int main(int argc,char**argv){int n=atoi(argv[1]);char buf[64];
 for(int i=0;i<n;i++){unsigned long long t0=now();sprintf(buf,"%llu",t0);setenv("T0",buf,1);
  pid_t p=fork(); if(!p){int fd=open("/dev/null",O_WRONLY);dup2(fd,1);execv(argv[2],argv+2);_exit(127);}
  int st;waitpid(p,&st,0);unsigned long long t1=now();fprintf(stderr,"END %llu\n",(t1-t0)/1000);}
}
