// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: fi_tostr() - human readable objects and flags.
 *
 * The output is YAML-like, as libfabric prints it.  Everything is written
 * into the caller's buffer: no static storage, so concurrent callers are
 * safe.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/socket.h>
#include <linux/stdarg.h>
#include "kofi_core.h"

struct kofi_out {
	char *buf;
	size_t len;
	size_t pos;
};

static __printf(2, 3) void kofi_put(struct kofi_out *o, const char *fmt, ...)
{
	va_list args;

	if (o->pos + 1 >= o->len)
		return;
	va_start(args, fmt);
	o->pos += vscnprintf(o->buf + o->pos, o->len - o->pos, fmt, args);
	va_end(args);
}

struct kofi_name {
	u64 val;
	const char *name;
};

#define KOFI_N(x)	{ (u64)(x), #x }

static const struct kofi_name kofi_caps_names[] = {
	KOFI_N(FI_MSG), KOFI_N(FI_RMA), KOFI_N(FI_TAGGED), KOFI_N(FI_ATOMIC),
	KOFI_N(FI_MULTICAST), KOFI_N(FI_READ), KOFI_N(FI_WRITE),
	KOFI_N(FI_RECV), KOFI_N(FI_SEND), KOFI_N(FI_REMOTE_READ),
	KOFI_N(FI_REMOTE_WRITE), KOFI_N(FI_MULTI_RECV),
	KOFI_N(FI_REMOTE_CQ_DATA), KOFI_N(FI_MORE), KOFI_N(FI_PEEK),
	KOFI_N(FI_TRIGGER), KOFI_N(FI_FENCE), KOFI_N(FI_COMPLETION),
	KOFI_N(FI_INJECT), KOFI_N(FI_INJECT_COMPLETE),
	KOFI_N(FI_TRANSMIT_COMPLETE), KOFI_N(FI_DELIVERY_COMPLETE),
	KOFI_N(FI_AFFINITY), KOFI_N(FI_LOCAL_COMM), KOFI_N(FI_REMOTE_COMM),
	KOFI_N(FI_PROV_ATTR_ONLY), KOFI_N(FI_NUMERICHOST),
	KOFI_N(FI_RMA_EVENT), KOFI_N(FI_SOURCE), KOFI_N(FI_NAMED_RX_CTX),
	KOFI_N(FI_DIRECTED_RECV), KOFI_N(FI_MAY_SLEEP),
	{}
};

static const struct kofi_name kofi_mode_names[] = {
	KOFI_N(FI_CONTEXT2), KOFI_N(FI_RX_CQ_DATA), KOFI_N(FI_ASYNC_IOV),
	KOFI_N(FI_MSG_PREFIX), KOFI_N(FI_CONTEXT),
	{}
};

static const struct kofi_name kofi_mr_mode_names[] = {
	KOFI_N(FI_MR_LOCAL), KOFI_N(FI_MR_RAW), KOFI_N(FI_MR_VIRT_ADDR),
	KOFI_N(FI_MR_ALLOCATED), KOFI_N(FI_MR_PROV_KEY),
	KOFI_N(FI_MR_RMA_EVENT), KOFI_N(FI_MR_ENDPOINT),
	{}
};

static const struct kofi_name kofi_ep_type_names[] = {
	KOFI_N(FI_EP_UNSPEC), KOFI_N(FI_EP_MSG), KOFI_N(FI_EP_DGRAM),
	KOFI_N(FI_EP_RDM), KOFI_N(FI_EP_SOCK_STREAM), KOFI_N(FI_EP_SOCK_DGRAM),
	{}
};

static const struct kofi_name kofi_addr_format_names[] = {
	KOFI_N(FI_FORMAT_UNSPEC), KOFI_N(FI_SOCKADDR), KOFI_N(FI_SOCKADDR_IN),
	KOFI_N(FI_SOCKADDR_IN6),
	{}
};

static const struct kofi_name kofi_event_names[] = {
	KOFI_N(FI_NOTIFY), KOFI_N(FI_CONNREQ), KOFI_N(FI_CONNECTED),
	KOFI_N(FI_SHUTDOWN), KOFI_N(FI_MR_COMPLETE), KOFI_N(FI_AV_COMPLETE),
	KOFI_N(FI_JOIN_COMPLETE),
	{}
};

static const struct kofi_name kofi_cq_format_names[] = {
	KOFI_N(FI_CQ_FORMAT_UNSPEC), KOFI_N(FI_CQ_FORMAT_CONTEXT),
	KOFI_N(FI_CQ_FORMAT_MSG), KOFI_N(FI_CQ_FORMAT_DATA),
	KOFI_N(FI_CQ_FORMAT_TAGGED),
	{}
};

static const struct kofi_name kofi_class_names[] = {
	KOFI_N(FI_CLASS_UNSPEC), KOFI_N(FI_CLASS_FABRIC),
	KOFI_N(FI_CLASS_DOMAIN), KOFI_N(FI_CLASS_EP), KOFI_N(FI_CLASS_PEP),
	KOFI_N(FI_CLASS_AV), KOFI_N(FI_CLASS_MR), KOFI_N(FI_CLASS_EQ),
	KOFI_N(FI_CLASS_CQ), KOFI_N(FI_CLASS_CNTR), KOFI_N(FI_CLASS_CONNREQ),
	KOFI_N(FI_CLASS_SRX_CTX),
	{}
};

static const struct kofi_name kofi_av_type_names[] = {
	KOFI_N(FI_AV_UNSPEC), KOFI_N(FI_AV_MAP), KOFI_N(FI_AV_TABLE),
	{}
};

static const struct kofi_name kofi_threading_names[] = {
	KOFI_N(FI_THREAD_UNSPEC), KOFI_N(FI_THREAD_SAFE),
	KOFI_N(FI_THREAD_DOMAIN), KOFI_N(FI_THREAD_ENDPOINT),
	KOFI_N(FI_THREAD_COMPLETION),
	{}
};

static const struct kofi_name kofi_progress_names[] = {
	KOFI_N(FI_PROGRESS_UNSPEC), KOFI_N(FI_PROGRESS_AUTO),
	KOFI_N(FI_PROGRESS_MANUAL),
	{}
};

/* Bits of @val as "[ FI_A, FI_B ]", unknown bits in hex. */
static void kofi_put_bits(struct kofi_out *o, const struct kofi_name *n,
			  u64 val)
{
	bool first = true;

	kofi_put(o, "[");
	for (; n->name; n++) {
		if (n->val && (val & n->val) == n->val) {
			kofi_put(o, "%s %s", first ? "" : ",", n->name);
			val &= ~n->val;
			first = false;
		}
	}
	if (val)
		kofi_put(o, "%s 0x%llx", first ? "" : ",", val);
	kofi_put(o, " ]");
}

static void kofi_put_enum(struct kofi_out *o, const struct kofi_name *n,
			  u64 val)
{
	for (; n->name; n++) {
		if (n->val == val) {
			kofi_put(o, "%s", n->name);
			return;
		}
	}
	kofi_put(o, "%llu", val);
}

static void kofi_put_version(struct kofi_out *o, u32 v)
{
	kofi_put(o, "%u.%u", FI_MAJOR(v), FI_MINOR(v));
}

static void kofi_put_addr(struct kofi_out *o, u32 fmt, const void *addr,
			  size_t len)
{
	if (!addr) {
		kofi_put(o, "(none)");
		return;
	}
	if ((fmt == FI_SOCKADDR_IN && len >= sizeof(struct sockaddr_in)) ||
	    (fmt == FI_SOCKADDR_IN6 && len >= sizeof(struct sockaddr_in6)))
		kofi_put(o, "%pISpc", addr);
	else
		kofi_put(o, "(%zu bytes)", len);
}

static void kofi_put_tx(struct kofi_out *o, const struct fi_tx_attr *a,
			const char *ind)
{
	kofi_put(o, "%sfi_tx_attr:\n%s    caps: ", ind, ind);
	kofi_put_bits(o, kofi_caps_names, a->caps);
	kofi_put(o, "\n%s    mode: ", ind);
	kofi_put_bits(o, kofi_mode_names, a->mode);
	kofi_put(o, "\n%s    op_flags: ", ind);
	kofi_put_bits(o, kofi_caps_names, a->op_flags);
	kofi_put(o, "\n%s    inject_size: %zu\n%s    size: %zu\n",
		 ind, a->inject_size, ind, a->size);
	kofi_put(o, "%s    iov_limit: %zu\n%s    rma_iov_limit: %zu\n",
		 ind, a->iov_limit, ind, a->rma_iov_limit);
}

static void kofi_put_rx(struct kofi_out *o, const struct fi_rx_attr *a,
			const char *ind)
{
	kofi_put(o, "%sfi_rx_attr:\n%s    caps: ", ind, ind);
	kofi_put_bits(o, kofi_caps_names, a->caps);
	kofi_put(o, "\n%s    mode: ", ind);
	kofi_put_bits(o, kofi_mode_names, a->mode);
	kofi_put(o, "\n%s    op_flags: ", ind);
	kofi_put_bits(o, kofi_caps_names, a->op_flags);
	kofi_put(o, "\n%s    total_buffered_recv: %zu\n%s    size: %zu\n",
		 ind, a->total_buffered_recv, ind, a->size);
	kofi_put(o, "%s    iov_limit: %zu\n", ind, a->iov_limit);
}

static void kofi_put_ep(struct kofi_out *o, const struct fi_ep_attr *a,
			const char *ind)
{
	kofi_put(o, "%sfi_ep_attr:\n%s    type: ", ind, ind);
	kofi_put_enum(o, kofi_ep_type_names, a->type);
	kofi_put(o, "\n%s    protocol: %u\n%s    protocol_version: %u\n",
		 ind, a->protocol, ind, a->protocol_version);
	kofi_put(o, "%s    max_msg_size: %zu\n%s    max_cm_data_size: %zu\n",
		 ind, a->max_msg_size, ind, a->max_cm_data_size);
	kofi_put(o, "%s    msg_prefix_size: %zu\n", ind, a->msg_prefix_size);
}

static void kofi_put_domain(struct kofi_out *o,
			    const struct fi_domain_attr *a, const char *ind)
{
	kofi_put(o, "%sfi_domain_attr:\n%s    name: %s\n%s    threading: ",
		 ind, ind, a->name ? a->name : "(null)", ind);
	kofi_put_enum(o, kofi_threading_names, a->threading);
	kofi_put(o, "\n%s    control_progress: ", ind);
	kofi_put_enum(o, kofi_progress_names, a->control_progress);
	kofi_put(o, "\n%s    data_progress: ", ind);
	kofi_put_enum(o, kofi_progress_names, a->data_progress);
	kofi_put(o, "\n%s    mr_mode: ", ind);
	kofi_put_bits(o, kofi_mr_mode_names, a->mr_mode);
	kofi_put(o, "\n%s    mr_key_size: %zu\n%s    cq_data_size: %zu\n",
		 ind, a->mr_key_size, ind, a->cq_data_size);
	kofi_put(o, "%s    mr_iov_limit: %zu\n", ind, a->mr_iov_limit);
	kofi_put(o, "%s    max_ep_srx_ctx: %zu\n", ind, a->max_ep_srx_ctx);
}

static void kofi_put_fabric(struct kofi_out *o,
			    const struct fi_fabric_attr *a, const char *ind)
{
	kofi_put(o, "%sfi_fabric_attr:\n%s    name: %s\n%s    prov_name: %s\n",
		 ind, ind, a->name ? a->name : "(null)", ind,
		 a->prov_name ? a->prov_name : "(null)");
	kofi_put(o, "%s    prov_version: ", ind);
	kofi_put_version(o, a->prov_version);
	kofi_put(o, "\n%s    api_version: ", ind);
	kofi_put_version(o, a->api_version);
	kofi_put(o, "\n");
}

static void kofi_put_info(struct kofi_out *o, const struct fi_info *info)
{
	const char *ind = "    ";

	kofi_put(o, "fi_info:\n    caps: ");
	kofi_put_bits(o, kofi_caps_names, info->caps);
	kofi_put(o, "\n    mode: ");
	kofi_put_bits(o, kofi_mode_names, info->mode);
	kofi_put(o, "\n    addr_format: ");
	kofi_put_enum(o, kofi_addr_format_names, info->addr_format);
	kofi_put(o, "\n    src_addr: ");
	kofi_put_addr(o, info->addr_format, info->src_addr,
		      info->src_addrlen);
	kofi_put(o, "\n    dest_addr: ");
	kofi_put_addr(o, info->addr_format, info->dest_addr,
		      info->dest_addrlen);
	kofi_put(o, "\n    handle: %s\n", info->handle ? "set" : "(null)");
	if (info->tx_attr)
		kofi_put_tx(o, info->tx_attr, ind);
	if (info->rx_attr)
		kofi_put_rx(o, info->rx_attr, ind);
	if (info->ep_attr)
		kofi_put_ep(o, info->ep_attr, ind);
	if (info->domain_attr)
		kofi_put_domain(o, info->domain_attr, ind);
	if (info->fabric_attr)
		kofi_put_fabric(o, info->fabric_attr, ind);
}

/**
 * fi_tostr() - print a kOFI value or structure into a buffer
 * @buf: the caller's buffer
 * @len: its size; the output is always NUL terminated and truncated to fit
 * @data: pointer to the value (a u64 for FI_TYPE_CAPS/OP_FLAGS/MODE, a u32
 *	for FI_TYPE_ADDR_FORMAT/MR_MODE/EQ_EVENT/FID_CLASS/VERSION, the enum
 *	for FI_TYPE_EP_TYPE/CQ_FORMAT, the structure for the others)
 * @type: what @data points to
 *
 * Context: any context; uses only the caller's buffer, so concurrent
 * callers with their own buffers are safe.
 * Return: @buf, or NULL if @buf is NULL or @len is 0.
 */
char *fi_tostr(char *buf, size_t len, const void *data, enum fi_type type)
{
	struct kofi_out o = { .buf = buf, .len = len };

	if (!buf || !len)
		return NULL;
	buf[0] = '\0';
	if (!data) {
		kofi_put(&o, "(null)");
		return buf;
	}
	switch (type) {
	case FI_TYPE_INFO:
		kofi_put_info(&o, data);
		break;
	case FI_TYPE_EP_TYPE:
		kofi_put_enum(&o, kofi_ep_type_names,
			      *(const enum fi_ep_type *)data);
		break;
	case FI_TYPE_CAPS:
	case FI_TYPE_OP_FLAGS:
		kofi_put_bits(&o, kofi_caps_names, *(const u64 *)data);
		break;
	case FI_TYPE_MODE:
		kofi_put_bits(&o, kofi_mode_names, *(const u64 *)data);
		break;
	case FI_TYPE_ADDR_FORMAT:
		kofi_put_enum(&o, kofi_addr_format_names, *(const u32 *)data);
		break;
	case FI_TYPE_TX_ATTR:
		kofi_put_tx(&o, data, "");
		break;
	case FI_TYPE_RX_ATTR:
		kofi_put_rx(&o, data, "");
		break;
	case FI_TYPE_EP_ATTR:
		kofi_put_ep(&o, data, "");
		break;
	case FI_TYPE_DOMAIN_ATTR:
		kofi_put_domain(&o, data, "");
		break;
	case FI_TYPE_FABRIC_ATTR:
		kofi_put_fabric(&o, data, "");
		break;
	case FI_TYPE_MR_MODE:
		kofi_put_bits(&o, kofi_mr_mode_names, *(const u32 *)data);
		break;
	case FI_TYPE_EQ_EVENT:
		kofi_put_enum(&o, kofi_event_names, *(const u32 *)data);
		break;
	case FI_TYPE_CQ_FORMAT:
		kofi_put_enum(&o, kofi_cq_format_names,
			      *(const enum fi_cq_format *)data);
		break;
	case FI_TYPE_FID_CLASS:
		kofi_put_enum(&o, kofi_class_names, *(const u32 *)data);
		break;
	case FI_TYPE_VERSION:
		kofi_put_version(&o, *(const u32 *)data);
		break;
	case FI_TYPE_AV_TYPE:
		kofi_put_enum(&o, kofi_av_type_names,
			      *(const enum fi_av_type *)data);
		break;
	default:
		kofi_put(&o, "(unknown type %d)", type);
		break;
	}
	return buf;
}
EXPORT_SYMBOL_GPL(fi_tostr);
