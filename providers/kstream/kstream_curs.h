/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kstream: ring cursors.
 *
 * A position in a ring of @size entries (bytes of the send buffer or the
 * receive ring, entries of the message length ring) is kept as a cursor:
 * the offset in the ring (@count, always below @size) and how many times
 * the position went round (@wrap, a free-running 32-bit counter).  Two
 * cursors of one ring give the distance between them without ambiguity
 * when they are at the same offset (empty or full), and compare correctly
 * across the 32-bit wrap of @wrap as long as they are less than 2^31
 * rounds apart.  Pure arithmetic: no locks, any context.
 */
#ifndef _KSTREAM_CURS_H
#define _KSTREAM_CURS_H

#include <linux/types.h>

/**
 * struct kstream_curs - a position in a ring
 * @wrap: rounds of the ring done (wraps at 32 bits)
 * @count: offset in the ring, below its size
 */
struct kstream_curs {
	u32 wrap;
	u32 count;
};

/**
 * kstream_curs_add() - move a cursor forward
 * @size: entries of the ring
 * @curs: the cursor
 * @value: entries to move, at most @size
 *
 * Context: any context.
 */
static inline void kstream_curs_add(u32 size, struct kstream_curs *curs,
				    u32 value)
{
	/* Compared before the sum: size - count cannot overflow. */
	if (value >= size - curs->count) {
		curs->count = value - (size - curs->count);
		curs->wrap++;
	} else {
		curs->count += value;
	}
}

/**
 * kstream_curs_comp() - order two cursors of one ring
 * @old: a cursor
 * @new: another cursor, less than 2^31 rounds from @old
 *
 * Context: any context.
 * Return: -1 if @new is behind @old, 0 if they are equal, 1 if @new is
 * ahead of @old.
 */
static inline int kstream_curs_comp(const struct kstream_curs *old,
				    const struct kstream_curs *new)
{
	s32 rounds = (s32)(new->wrap - old->wrap);

	if (rounds)
		return rounds > 0 ? 1 : -1;
	if (new->count == old->count)
		return 0;
	return new->count > old->count ? 1 : -1;
}

/**
 * kstream_curs_diff() - entries from one cursor to a later one
 * @size: entries of the ring
 * @old: the earlier cursor
 * @new: the later cursor, at most @size entries ahead of @old
 *
 * Callers that cannot be sure of the order check it with
 * kstream_curs_comp() first.
 *
 * Context: any context.
 * Return: the entries from @old to @new, 0 to @size.
 */
static inline u32 kstream_curs_diff(u32 size, const struct kstream_curs *old,
				    const struct kstream_curs *new)
{
	if (old->wrap != new->wrap)
		return size - old->count + new->count;
	return new->count - old->count;
}

/**
 * kstream_curs_next() - a cursor moved forward, the cursor left as it is
 * @size: entries of the ring
 * @curs: the cursor
 * @value: entries to move, at most @size
 *
 * Context: any context.
 * Return: @curs moved by @value.
 */
static inline struct kstream_curs kstream_curs_next(u32 size,
						    const struct kstream_curs *curs,
						    u32 value)
{
	struct kstream_curs c = *curs;

	kstream_curs_add(size, &c, value);
	return c;
}

#endif /* _KSTREAM_CURS_H */
