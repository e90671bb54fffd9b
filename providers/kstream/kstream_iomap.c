// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: direct placement - rsockets' riomap(), riounmap() and
 * riowrite() on a stream endpoint.
 *
 * Each side offers the peer an iomap table of FI_OPT_KSTREAM_IOMAPSIZE
 * entries right after its target SGL (same core MR, size in the connection
 * data).  kstream_ep_iomap() registers a buffer with the core provider and
 * writes its entry {offset, addr, key, length} into a free slot of the
 * peer's table: an RDMA write with immediate IOMAP_SGL | index that takes
 * a send slot, send buffer bytes and a credit, like a data message.  The
 * receiver checks the entry and keeps a copy; kstream_ep_iowrite() looks
 * the target offset up in that copy and writes into the mapped buffer with
 * plain RDMA writes (no immediate, no credit), in order with the stream.
 * The receiver is not told: the data is simply there, before any data
 * sent after it.
 */
#include <linux/mman.h>
#include <linux/slab.h>
#include "kstream.h"

/**
 * kstream_iomap_init() - allocate the target SGL and our iomap table
 * @kep: the endpoint being enabled
 *
 * The table size is FI_OPT_KSTREAM_IOMAPSIZE rounded down to what the
 * connection data can express.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kstream_iomap_init(struct kstream_ep *kep)
{
	size_t n = min_t(size_t, kep->opts.iomap_size, KSTREAM_IOMAP_MAX);

	kep->iomap_size = kstream_iomap_unscale(kstream_iomap_scale(n));
	kep->iomap_stride = kep->wide_keys ? KSTREAM_IOMAP_ENTRY_EXT :
					     KSTREAM_IOMAP_ENTRY;
	kep->tsgl = kvzalloc(KSTREAM_SGL_SIZE * sizeof(*kep->tsgl) +
			     kep->iomap_size * kep->iomap_stride, GFP_KERNEL);
	if (!kep->tsgl)
		return -ENOMEM;
	if (kep->iomap_size) {
		kep->tiomap = kvcalloc(kep->iomap_size, sizeof(*kep->tiomap),
				       GFP_KERNEL);
		if (!kep->tiomap)
			return -ENOMEM;
	}
	return 0;
}

/**
 * kstream_iomap_release() - drop every mapping of a closed endpoint
 * @kep: the endpoint, its core endpoint already closed
 *
 * Context: process context, may sleep.
 */
void kstream_iomap_release(struct kstream_ep *kep)
{
	u32 i;

	for (i = 0; kep->liomap && i < kep->liomap_size; i++)
		if (kep->liomap[i].mr)
			fi_close(&kep->liomap[i].mr->fid);
	kvfree(kep->liomap);
	kvfree(kep->tiomap);
	kep->liomap = NULL;
	kep->tiomap = NULL;
	kep->iomap_pending = false;
}

/**
 * kstream_iomap_rx() - take the entry the peer wrote into our table
 * @kep: the endpoint (lock held)
 * @index: the slot, below kep->iomap_size
 *
 * Context: any context, endpoint lock held.
 * Return: 0, or -EPROTO for an entry that cannot be used.
 */
int kstream_iomap_rx(struct kstream_ep *kep, u32 index)
{
	const u8 *p = (const u8 *)(kep->tsgl + KSTREAM_SGL_SIZE) +
		      (size_t)index * kep->iomap_stride;
	struct kstream_iomap_ent e = {};

	if (index >= kep->iomap_size)
		return -EPROTO;
	memcpy(&e, p, kep->iomap_stride);
	if (kep->swap_sgl)
		kstream_iomap_swap(&e);
	if (!kep->wide_keys)
		e.key_hi = 0;
	if (!kstream_iomap_valid(&e))
		return -EPROTO;
	kep->tiomap[index] = e;
	return 0;
}

/* Copy @len bytes into the send buffer at sbuf_tail (lock held). */
static void kstream_sbuf_put(struct kstream_ep *kep, const void *src, u32 len)
{
	u32 off = kep->sbuf_tail.count;
	u32 first = min(len, kep->sbuf_size - off);

	memcpy(kep->sbuf + off, src, first);
	memcpy(kep->sbuf, src + first, len - first);
}

/**
 * kstream_iomap_flush() - write the pending entries into the peer's table
 * @kep: the endpoint (lock held, stream writable)
 *
 * As many as send slots, send buffer and credits allow; the rest stays
 * pending for the next send, iowrite or completion.  None while a send or
 * iowrite copies its data (tx_busy): kstream_tx_end() flushes them; none
 * while sent bytes are queued: they go first, then the progress flushes.
 *
 * Context: any context, endpoint lock held.
 */
void kstream_iomap_flush(struct kstream_ep *kep)
{
	struct kstream_iomap_ent e = {};
	struct kstream_liomap *m;
	bool pending = false;
	u64 key;
	u32 i;
	int ret;

	if (kep->tx_busy || kstream_sbuf_queued(kep))
		return;

	for (i = 0; kep->liomap && i < kep->liomap_size; i++) {
		m = &kep->liomap[i];
		if (!m->mr || !m->pending)
			continue;
		if (!kep->peer_heard || !kep->sqe_avail ||
		    kep->sseq_comp == kep->sseq_no ||
		    kep->sbuf_avail < kep->iomap_stride) {
			pending = true;
			break;
		}
		key = fi_mr_key(m->mr);
		e.offset = m->offset;
		e.addr = kep->virt ? (u64)(uintptr_t)m->buf : 0;
		e.key = lower_32_bits(key);
		e.length = m->len;
		e.key_hi = upper_32_bits(key);
		if (kep->swap_sgl)
			kstream_iomap_swap(&e);
		kstream_sbuf_put(kep, &e, kep->iomap_stride);
		ret = kstream_post_sbuf(kep, kep->iomap_stride,
					kep->remote_sgl.addr + KSTREAM_SGL_SIZE *
					sizeof(struct kstream_sge) +
					(u64)i * kep->iomap_stride,
					kep->remote_sgl_key,
					kstream_msg(KSTREAM_OP_IOMAP_SGL, i),
					true);
		if (ret) {
			pending = true;
			if (ret != -EAGAIN && ret != -ENOTCONN)
				kstream_fail(kep, -ret);
			break;
		}
		kep->sbuf_avail -= kep->iomap_stride;
		kep->sseq_no++;
		m->pending = false;
	}
	kep->iomap_pending = pending;
}

/* A free offset for @len bytes: after every mapping (mutex held). */
static u64 kstream_iomap_pick(struct kstream_ep *kep)
{
	u64 end = 0;
	u32 i;

	for (i = 0; i < kep->liomap_size; i++)
		if (kep->liomap[i].mr)
			end = max(end, kep->liomap[i].offset +
				  kep->liomap[i].len);
	return PAGE_ALIGN(end);
}

/* Does [@off, @off + @len) overlap a mapping (mutex held)? */
static bool kstream_iomap_overlaps(struct kstream_ep *kep, u64 off, u64 len)
{
	struct kstream_liomap *m;
	u32 i;

	for (i = 0; i < kep->liomap_size; i++) {
		m = &kep->liomap[i];
		if (m->mr && off < m->offset + m->len && m->offset < off + len)
			return true;
	}
	return false;
}

/* Find a free slot, allocating the slots on first use (mutex held). */
static int kstream_iomap_slot(struct kstream_ep *kep)
{
	struct kstream_liomap *tab;
	u32 i, n;

	spin_lock_bh(&kep->lock);
	n = kep->state == KSTREAM_CONNECTED ? kep->liomap_size : 0;
	spin_unlock_bh(&kep->lock);
	if (!n)
		return -ENOSPC;
	if (!kep->liomap) {
		tab = kvcalloc(n, sizeof(*tab), GFP_KERNEL);
		if (!tab)
			return -ENOMEM;
		spin_lock_bh(&kep->lock);
		kep->liomap = tab;
		spin_unlock_bh(&kep->lock);
	}
	for (i = 0; i < kep->liomap_size; i++)
		if (!kep->liomap[i].mr)
			return i;
	return -ENOSPC;
}

/**
 * kstream_ep_iomap() - offer a buffer for direct placement, as riomap()
 * @ep: a connected kstream endpoint
 * @buf: kernel memory the peer may write into (kmalloc, vmalloc or pages
 *	the core provider can register); it must stay until unmapped
 * @len: its bytes (at most 4 GiB - 1)
 * @prot: PROT_WRITE
 * @offset: the iomap offset of @buf's first byte, or -1: the page-aligned
 *	offset after every current mapping
 *
 * Registers @buf with the core provider (fi_mr_reg(), FI_REMOTE_WRITE)
 * and writes its entry into a free slot of the peer's iomap table (the
 * peer's FI_OPT_KSTREAM_IOMAPSIZE slots) at once, or with the next send
 * if no send slot or credit is free now.  As with riomap(), the peer can
 * rely on the mapping once it received data sent after this call.
 *
 * Context: process context, may sleep.
 * Return: the offset (>= 0); -EINVAL for a non-kstream @ep, a NULL @buf,
 * a bad @len, @prot or @offset, or an offset range that overlaps a
 * mapping; -ENOTCONN when not connected (or after the stream ended);
 * -ENOSPC when the peer offers no (more) slots; -ENOMEM; the core's
 * registration error.
 */
off_t kstream_ep_iomap(struct fid_ep *ep, void *buf, size_t len, int prot,
		       off_t offset)
{
	struct kstream_ep *kep;
	struct fid_mr *mr;
	u64 off;
	int slot, ret;

	if (!kstream_is_ep(ep) || !buf || !len || len > U32_MAX ||
	    prot != PROT_WRITE || offset < -1 ||
	    (offset >= 0 && (u64)offset + len > (u64)S64_MAX))
		return -EINVAL;
	kep = kstream_ep(ep);
	spin_lock_bh(&kep->lock);
	ret = kstream_tx_check(kep) ? -ENOTCONN : 0;
	spin_unlock_bh(&kep->lock);
	if (ret)
		return ret;
	mutex_lock(&kep->iomap_mutex);
	slot = kstream_iomap_slot(kep);
	if (slot < 0) {
		ret = slot;
		goto out;
	}
	off = offset == -1 ? kstream_iomap_pick(kep) : (u64)offset;
	if (off + len > (u64)S64_MAX || kstream_iomap_overlaps(kep, off, len)) {
		ret = -EINVAL;
		goto out;
	}
	ret = fi_mr_reg(kep->dom->core, buf, len, FI_REMOTE_WRITE | FI_RECV,
			0, 0, 0, &mr, NULL);
	if (ret)
		goto out;
	spin_lock_bh(&kep->lock);
	kep->liomap[slot].buf = buf;
	kep->liomap[slot].len = len;
	kep->liomap[slot].offset = off;
	kep->liomap[slot].mr = mr;
	kep->liomap[slot].pending = true;
	kep->iomap_pending = true;
	if (!kstream_tx_check(kep))
		kstream_iomap_flush(kep);
	if (kep->iomap_pending)
		kstream_tx_waiter(kep);
	spin_unlock_bh(&kep->lock);
out:
	mutex_unlock(&kep->iomap_mutex);
	return ret ? ret : (off_t)off;
}
EXPORT_SYMBOL_GPL(kstream_ep_iomap);

/**
 * kstream_ep_iounmap() - withdraw a buffer of kstream_ep_iomap()
 * @ep: a kstream endpoint
 * @buf: the buffer, as mapped
 * @len: its bytes, as mapped
 *
 * Deregisters the buffer, as riounmap(): the peer is not told, and a
 * write of its into the buffer from now on fails its stream.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL for a non-kstream @ep or a buffer not mapped.
 */
int kstream_ep_iounmap(struct fid_ep *ep, void *buf, size_t len)
{
	struct fid_mr *mr = NULL;
	struct kstream_ep *kep;
	u32 i;

	if (!kstream_is_ep(ep) || !buf)
		return -EINVAL;
	kep = kstream_ep(ep);
	mutex_lock(&kep->iomap_mutex);
	spin_lock_bh(&kep->lock);
	for (i = 0; kep->liomap && i < kep->liomap_size; i++) {
		if (kep->liomap[i].mr && kep->liomap[i].buf == buf &&
		    kep->liomap[i].len == len) {
			mr = kep->liomap[i].mr;
			memset(&kep->liomap[i], 0, sizeof(kep->liomap[i]));
			break;
		}
	}
	spin_unlock_bh(&kep->lock);
	if (mr)
		fi_close(&mr->fid);
	mutex_unlock(&kep->iomap_mutex);
	return mr ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(kstream_ep_iounmap);

/*
 * Room for an iowrite chunk (lock held): a send slot, 2 KiB of send buffer
 * and no stream bytes queued before it.
 */
static bool kstream_iowrite_room(const struct kstream_ep *kep)
{
	return kep->sqe_avail && kep->sbuf_avail >= KSTREAM_SNDLOWAT &&
	       !kstream_sbuf_queued(kep);
}

/**
 * kstream_ep_iowritable() - could kstream_ep_iowrite() post a write now?
 * @ep: a kstream endpoint
 *
 * Context: any context but hard interrupts; takes the endpoint lock.
 * Return: true when a send slot and at least 2 KiB of send buffer are
 * free and no sent bytes wait in it, or when the stream has ended (the
 * write then says why); false otherwise and for a non-kstream @ep.
 */
bool kstream_ep_iowritable(struct fid_ep *ep)
{
	struct kstream_ep *kep;
	bool ok;

	if (!kstream_is_ep(ep))
		return false;
	kep = kstream_ep(ep);
	spin_lock_bh(&kep->lock);
	ok = kstream_tx_check(kep) || kstream_iowrite_room(kep);
	if (!ok)
		kstream_tx_waiter(kep);
	spin_unlock_bh(&kep->lock);
	return ok;
}
EXPORT_SYMBOL_GPL(kstream_ep_iowritable);

/**
 * kstream_ep_iowrite() - write into the peer's mapped buffer, as riowrite()
 * @ep: a connected kstream endpoint
 * @buf: the bytes
 * @count: how many
 * @offset: the target iomap offset, in a buffer the peer mapped
 *
 * Copies what fits into the send buffer and writes it, in chunks of 2 KiB
 * doubling to 64 KiB, straight into the peer's buffer at @offset (plain
 * RDMA writes, no credit used).  It goes on across adjacent mappings and
 * stops at the end of the last one.  Data sent on the stream afterwards
 * arrives after it.  Never sleeps.
 *
 * Context: any context but hard interrupts; takes the endpoint lock.
 * Return: bytes written (> 0, possibly fewer than @count) or 0 for no
 * @count; -EAGAIN when no send slot or send buffer is free, bytes sent
 * on the stream before still wait for the peer's ring, or another send is
 * copying its data; -EINVAL for a non-kstream @ep, a NULL @buf, a
 * negative @offset or an @offset no peer mapping holds (riowrite() returns
 * 0 there); the stream's error, -EPIPE, -ECONNRESET or -ENOTCONN as
 * fi_send().
 */
ssize_t kstream_ep_iowrite(struct fid_ep *ep, const void *buf, size_t count,
			   off_t offset)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = count };
	u32 olen = KSTREAM_CHUNK_START, x;
	struct kstream_iomap_ent e;
	struct kstream_ep *kep;
	struct kstream_vec v;
	bool wake = false;
	size_t done = 0;
	u64 off, room;
	ssize_t ret;
	int idx;

	if (!kstream_is_ep(ep) || (!buf && count) || offset < 0)
		return -EINVAL;
	kep = kstream_ep(ep);
	kv.iov_len = min_t(size_t, count, INT_MAX);
	ret = kstream_vec_init(&v, ITER_SOURCE, FI_IOV_KVEC, &kv, 1);
	if (ret)
		return ret;
	count = v.len;
	spin_lock_bh(&kep->lock);
	ret = kstream_tx_check(kep);
	if (ret || !count)
		goto out;
	if (kep->iomap_pending)
		kstream_iomap_flush(kep);
	if (!kstream_busy_claim(kep, &kep->tx_busy)) {
		ret = -EAGAIN;
		goto out;
	}
	while (done < count) {
		off = (u64)offset + done;
		idx = kep->tiomap ? kstream_iomap_find(kep->tiomap,
						       kep->iomap_size, off) :
				    -1;
		if (idx < 0) {
			if (!done)
				ret = -EINVAL;
			break;
		}
		if (!kstream_iowrite_room(kep)) {
			kstream_tx_waiter(kep);
			break;
		}
		/* A copy: the peer may replace it while the lock is dropped. */
		e = kep->tiomap[idx];
		room = e.offset + e.length - off;
		x = kstream_chunk_next(&olen, count - done);
		x = min_t(u64, min(x, kep->sbuf_avail), room);
		spin_unlock_bh(&kep->lock);
		kstream_sbuf_copy(kep, &v, x);
		spin_lock_bh(&kep->lock);
		ret = kstream_tx_check(kep);
		if (!ret)
			ret = kstream_post_sbuf(kep, x,
						e.addr + (off - e.offset),
						(u64)e.key_hi << 32 | e.key,
						0, false);
		if (ret) {
			ret = kstream_tx_undo(kep, &v, x, ret);
			if (done)
				ret = 0;
			break;
		}
		kep->sbuf_avail -= x;
		done += x;
	}
	wake = kstream_tx_end(kep);
	if (done)
		ret = done;
	else if (!ret)
		ret = kep->err ? -kep->err : -EAGAIN;
out:
	spin_unlock_bh(&kep->lock);
	if (wake)
		kstream_wake(kep);
	return ret;
}
EXPORT_SYMBOL_GPL(kstream_ep_iowrite);
