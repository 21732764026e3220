/* cli: what the front ends share (cli.h). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_is_folder(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= 6 && !strncmp(path + n - 6, ".jsonl", 6))
		return 0;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

uint64_t cli_size(const char *s)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 10);
	int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
		    *end == 'G' || *end == 'g' ? 30 : 0;

	if (end == s || (shift && end[1]) || (!shift && *end) || n > (1ull << 40))
		return 0;
	return (uint64_t)n << shift;
}
