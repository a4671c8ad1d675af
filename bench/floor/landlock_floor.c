/* The C floor for bench/exec.sh: the least a launcher can do to run a
 * command under Landlock. It creates a ruleset handling every filesystem
 * right of ABI 3, grants read+execute on each -r path and everything on
 * each -w path, sets no_new_privs, restricts itself and execs the command.
 * No policy file, no checks, no environment work: whatever jp-policy exec
 * costs beyond this is its own.
 *
 *   landlock_floor -r PATH... -w PATH... -- CMD ARGS...
 *
 * Built static with the system compiler (cc -O2 -static). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/landlock.h>
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2; older headers lack it */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
	const __u64 all = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER |
		LANDLOCK_ACCESS_FS_TRUNCATE;
	const __u64 rx = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	struct landlock_ruleset_attr attr = {.handled_access_fs = all};
	int rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (rs < 0) { perror("landlock_create_ruleset"); return 125; }
	__u64 mode = rx;
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "-r")) { mode = rx; continue; }
		if (!strcmp(argv[i], "-w")) { mode = all; continue; }
		int fd = open(argv[i], O_PATH | O_CLOEXEC);
		if (fd < 0) continue;
		struct stat st;
		struct landlock_path_beneath_attr pb = {.allowed_access = mode, .parent_fd = fd};
		if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
				LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)) { perror(argv[i]); return 125; }
		close(fd);
	}
	if (i >= argc - 1) { fprintf(stderr, "usage: landlock_floor -r PATH... -w PATH... -- CMD...\n"); return 125; }
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) { perror("prctl"); return 125; }
	if (syscall(SYS_landlock_restrict_self, rs, 0)) { perror("landlock_restrict_self"); return 125; }
	execv(argv[i + 1], argv + i + 1);
	perror("execv");
	return 127;
}
