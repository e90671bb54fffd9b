/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kOFI: receive matching for providers of reliable datagram endpoints.
 *
 * A message that arrives goes to the first posted receive that takes it,
 * in posting order: same tag but for the receive's ignore bits (tagged
 * queues), same source if the receive names one (directed receive).  A
 * message that no receive takes waits, in arrival order, in a bounded
 * unexpected queue, where a receive posted later finds it, and where
 * fi_trecvmsg() with FI_PEEK, FI_CLAIM and FI_DISCARD looks.  A
 * multi-receive buffer (FI_MULTI_RECV) takes message after message until
 * less than the queue's minimum is left.  The code is in kofi.ko
 * (kofi/match.c); the caller serialises the calls on a queue with its own
 * lock.  ULPs do not include this header.
 */
#ifndef _KOFI_MATCH_H
#define _KOFI_MATCH_H

#include <linux/list.h>
#include <kofi/fi_tagged.h>

/**
 * struct kofi_match_entry - a posted receive or a message that arrived
 * @node: linkage in the queue, owned by it while the entry is queued
 * @addr: a receive's source (FI_ADDR_UNSPEC: any source); a message's
 *	source (FI_ADDR_NOTAVAIL if not known)
 * @tag: the tag (tagged queues only)
 * @ignore: a receive's tag bits that do not count
 * @context: a receive's operation context; for a message claimed with
 *	FI_CLAIM, the context that claimed it
 * @len: a receive's buffer length; a message's length
 * @offset: a multi-receive buffer's bytes taken so far; for a message
 *	taken by one, where it goes in the buffer
 * @flags: a receive's FI_MULTI_RECV; a message's FI_CLAIM once claimed,
 *	and FI_MULTI_RECV once it was the last one a multi-receive buffer
 *	took (the buffer is then released: its completion carries the flag)
 *
 * Embed it in the provider's receive and message structures.
 */
struct kofi_match_entry {
	struct list_head node;
	fi_addr_t addr;
	u64 tag;
	u64 ignore;
	void *context;
	size_t len;
	size_t offset;
	u64 flags;
};

/**
 * struct kofi_match_queue - posted receives and unexpected messages
 * @posted: receives, in posting order
 * @unexpected: messages no receive took, in arrival order
 * @nr_unexpected: entries on @unexpected
 * @max_unexpected: bound of @unexpected
 * @min_multi_recv: a multi-receive buffer with less left is released
 *	(FI_OPT_MIN_MULTI_RECV)
 * @tagged: tags count
 * @directed: a receive's @addr counts (FI_DIRECTED_RECV)
 */
struct kofi_match_queue {
	struct list_head posted;
	struct list_head unexpected;
	unsigned int nr_unexpected;
	unsigned int max_unexpected;
	size_t min_multi_recv;
	bool tagged;
	bool directed;
};

/**
 * kofi_msg_to_tagged() - a message call's description as a tagged call's
 * @msg: what fi_sendmsg() or fi_recvmsg() was given
 * @t: filled in: the same vector, descriptors, address, context and data,
 *	tag and ignore bits 0
 *
 * So that a provider implements a send and a receive once, for both
 * families.
 *
 * Context: any context.
 */
static inline void kofi_msg_to_tagged(const struct fi_msg *msg,
				      struct fi_msg_tagged *t)
{
	*t = (struct fi_msg_tagged){
		.iov_type = msg->iov_type,
		.msg_iov = msg->msg_iov,
		.desc = msg->desc,
		.iov_count = msg->iov_count,
		.addr = msg->addr,
		.context = msg->context,
		.data = msg->data,
	};
}

void kofi_match_init(struct kofi_match_queue *q, bool tagged, bool directed,
		     unsigned int max_unexpected, size_t min_multi_recv);
bool kofi_match_takes(const struct kofi_match_queue *q,
		      const struct kofi_match_entry *rx,
		      const struct kofi_match_entry *msg);
struct kofi_match_entry *kofi_match_find(struct kofi_match_queue *q,
					 struct kofi_match_entry *msg);
struct kofi_match_entry *kofi_match_arrive(struct kofi_match_queue *q,
					   struct kofi_match_entry *msg);
unsigned int kofi_match_post(struct kofi_match_queue *q,
			     struct kofi_match_entry *rx,
			     struct list_head *taken);
struct kofi_match_entry *kofi_match_peek(struct kofi_match_queue *q,
					 const struct kofi_match_entry *rx,
					 u64 flags);
struct kofi_match_entry *kofi_match_claim(struct kofi_match_queue *q,
					  void *context);
struct kofi_match_entry *kofi_match_cancel(struct kofi_match_queue *q,
					   void *context);
unsigned int kofi_match_forget(struct kofi_match_queue *q, fi_addr_t addr,
			       struct list_head *cancelled);

struct fid_cq;
struct kofi_comp;
int kofi_match_peek_write(struct fid_cq *cq, void *context,
			  const struct kofi_comp *found);

#endif /* _KOFI_MATCH_H */
