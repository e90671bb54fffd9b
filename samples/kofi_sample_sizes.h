/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI samples: the "sizes" module parameter of the timing samples - a
 * comma-separated list of up to KS_SIZES_MAX transfer sizes, or "all",
 * fi_pingpong's "-S all" list (ks_sizes_all()).
 *
 *	static unsigned int sizes[KS_SIZES_MAX] = { 64, 4096 };
 *	static unsigned int nsizes = 2;
 *	static bool sizes_all;
 *	static struct ks_sizes_param sizes_param =
 *		KS_SIZES_INIT(sizes, nsizes, sizes_all);
 *	module_param_cb(sizes, &ks_sizes_ops, &sizes_param.arr, 0444);
 */
#ifndef _KOFI_SAMPLE_SIZES_H
#define _KOFI_SAMPLE_SIZES_H

#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

/* Entries of a "sizes" parameter: fi_pingpong's whole list fits. */
#define KS_SIZES_MAX		64
/* The largest of fi_pingpong's sizes: 4 MiB + 2 MiB. */
#define KS_SIZES_ALL_LIMIT	(6U << 20)

/**
 * struct ks_sizes_param - a "sizes" module parameter: numbers or "all"
 * @arr: the array of sizes, as module_param_array() makes it
 * @all: set when the parameter is "all"
 */
struct ks_sizes_param {
	struct kparam_array arr;
	bool *all;
};

/* The ks_sizes_param of @elems (KS_SIZES_MAX entries), @count and @flag. */
#define KS_SIZES_INIT(elems, count, flag) {				\
	.arr = {							\
		.max = KS_SIZES_MAX,					\
		.elemsize = sizeof(unsigned int),			\
		.num = &(count),					\
		.ops = &param_ops_uint,					\
		.elem = (elems),					\
	},								\
	.all = &(flag),							\
}

static inline int ks_sizes_set(const char *val, const struct kernel_param *kp)
{
	const struct ks_sizes_param *p =
		container_of(kp->arr, struct ks_sizes_param, arr);

	*p->all = sysfs_streq(val, "all");
	return *p->all ? 0 : param_array_ops.set(val, kp);
}

static inline int ks_sizes_get(char *buf, const struct kernel_param *kp)
{
	const struct ks_sizes_param *p =
		container_of(kp->arr, struct ks_sizes_param, arr);

	return *p->all ? sysfs_emit(buf, "all\n") :
			 param_array_ops.get(buf, kp);
}

static const struct kernel_param_ops ks_sizes_ops = {
	.set = ks_sizes_set,
	.get = ks_sizes_get,
};

/**
 * ks_sizes_all() - fi_pingpong's "-S all" list of sizes
 * @sizes: at least KS_SIZES_MAX entries
 *
 * 0 and 1, then each power of two from 2 with the size half as large
 * again after it (2, 3, 4, 6, 8, 12, ...), up to KS_SIZES_ALL_LIMIT.
 * Once the endpoint is open, ks_sizes_fit() drops the sizes above its
 * max_msg_size, as fi_pingpong does.
 *
 * Return: the number of sizes.
 */
static inline unsigned int ks_sizes_all(unsigned int *sizes)
{
	unsigned int n = 0, i, pow;

	for (i = 0; n + 2 <= KS_SIZES_MAX; i++) {
		pow = i ? 1U << i : 0;
		if (pow > KS_SIZES_ALL_LIMIT)
			break;
		sizes[n++] = pow;
		pow = i ? pow + pow / 2 : 1;
		if (pow > KS_SIZES_ALL_LIMIT)
			break;
		sizes[n++] = pow;
	}
	return n;
}

#endif /* _KOFI_SAMPLE_SIZES_H */
