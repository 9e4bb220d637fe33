// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: cpuset-toss-runc's edit of config.json, the numbers
 * jansson cannot hold kept as written (hide_numbers(), show_numbers())
 * and the toss added (add_toss()).  Whatever the input: no crash, leak or
 * undefined behaviour, and a config.json jansson reads as it is gives a
 * result it reads too.
 */
#define main wrapper_main
#include "../docker/cpuset-toss-runc.c"
#undef main
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct numbers nums = { NULL, 0 };
	json_t *spec, *direct, *again;
	char *hidden, *text = NULL;
	json_error_t e;
	size_t hlen;

	direct = json_loadb((const char *)data, size, JSON_ALLOW_NUL, &e);
	hidden = hide_numbers((const char *)data, size, &nums, &hlen);
	if (!hidden) {
		json_decref(direct);
		return 0;
	}
	spec = json_loadb(hidden, hlen, JSON_ALLOW_NUL, &e);
	if (direct && !spec)
		__builtin_trap();	/* hiding broke a good config.json */
	if (spec && add_toss(spec, "1") >= 0) {
		text = json_dumps(spec, JSON_COMPACT);
		if (text)
			text = show_numbers(text, &nums);
		if (direct && !text)
			__builtin_trap();
		if (direct) {
			again = json_loads(text, JSON_ALLOW_NUL, &e);
			if (!again)
				__builtin_trap();	/* we wrote what we cannot read */
			json_decref(again);
		}
	}
	free(text);
	free(hidden);
	numbers_free(&nums);
	json_decref(spec);
	json_decref(direct);
	return 0;
}
