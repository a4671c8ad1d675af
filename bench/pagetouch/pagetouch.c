/*
 * pagetouch: what a first touch of fresh anonymous memory costs on this
 * machine, on 4 KB pages and on a transparent huge page, and what
 * MADV_COLLAPSE costs; the measurement behind internal/earlyheap
 * (docs/lint.md, "Huge pages for the heap"). Run by bench/pagetouch.sh.
 *
 * Each round maps fresh memory and times, with CLOCK_MONOTONIC:
 *   4k:       writing one byte to each of N pages (N page faults);
 *   populate: MADV_POPULATE_WRITE of the N pages, then the same writes;
 *   huge:     MADV_HUGEPAGE on a 2 MB-aligned range, then the writes
 *             (one fault maps the whole 2 MB);
 *   collapse: 100 pages touched, then MADV_COLLAPSE of the 2 MB around
 *             them (what earlyheap does with the runtime's first pages).
 * The mappings are unmapped after each round, so every round asks the
 * kernel for memory again, as a fresh process would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE (2u << 20)
#define PAGE 4096u

static double now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* aligned maps 4 MB and returns its first 2 MB boundary. */
static char *aligned(char **base) {
	*base = mmap(0, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*base == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return (char *)(((uintptr_t)*base + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
}

static void touch(char *p, int n) {
	for (int i = 0; i < n; i++)
		p[(size_t)i * PAGE] = 1;
}

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 5, n = 256;
	printf("%-9s %10s %12s  (%d pages of 4 KB; median of %d rounds)\n", "", "total us", "us per page", n, rounds);
	const char *names[] = {"4k", "populate", "huge", "collapse"};
	for (int mode = 0; mode < 4; mode++) {
		double t[64];
		int r, errs = 0;
		for (r = 0; r < rounds && r < 64; r++) {
			char *base, *p = aligned(&base);
			double t0 = now_us(), t1;
			switch (mode) {
			case 0:
				touch(p, n);
				break;
			case 1:
				errs += madvise(p, (size_t)n * PAGE, MADV_POPULATE_WRITE) != 0;
				touch(p, n);
				break;
			case 2:
				errs += madvise(p, HUGE, MADV_HUGEPAGE) != 0;
				touch(p, n);
				break;
			case 3:
				touch(p, 100);
				t0 = now_us();
				errs += madvise(p, HUGE, MADV_COLLAPSE) != 0;
				touch(p, n);
				break;
			}
			t1 = now_us();
			t[r] = t1 - t0;
			munmap(base, 2 * HUGE);
		}
		for (int i = 1; i < r; i++) /* insertion sort for the median */
			for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
				double x = t[j];
				t[j] = t[j - 1];
				t[j - 1] = x;
			}
		printf("%-9s %10.1f %12.2f%s\n", names[mode], t[r / 2], t[r / 2] / n, errs ? "  (madvise failed: THP off or no huge page)" : "");
	}
	return 0;
}
