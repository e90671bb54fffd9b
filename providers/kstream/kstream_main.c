// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kstream: module, module parameters, registration, fi_getinfo(), fabric
 * and domain objects.
 *
 * kstream is a utility provider: its infos ("ksocket;kstream",
 * "ib_verbs;kstream") are the core providers' FI_EP_MSG infos with
 * FI_MSG | FI_RMA and either at least 32 bits of remote CQ data or an
 * inject size of at least 4 bytes (iWARP, kstream_core_mode()), turned
 * into FI_EP_SOCK_STREAM infos.  Its fabric and domain are the utility
 * objects of <kofi/util.h>, which own the core's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "kstream.h"

#define KSTREAM_CAPS	(FI_MSG | FI_SEND | FI_RECV)

struct workqueue_struct *kstream_wq;

unsigned int kstream_mem_default = 32768;
unsigned int kstream_wmem_default = 32768;
unsigned int kstream_sqsize_default = 384;
unsigned int kstream_rqsize_default = 384;
unsigned int kstream_inline_default = 64;
unsigned int kstream_iomap_size;
unsigned int kstream_polling_time = 10;
unsigned int kstream_wake_up_interval = 5000;

/* A module parameter with its accepted range. */
struct kstream_param {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static int kstream_param_set(const char *s, const struct kernel_param *kp)
{
	const struct kstream_param *p = kp->arg;
	unsigned int v;
	int ret;

	ret = kstrtouint(s, 0, &v);
	if (ret)
		return ret;
	if (v < p->min || v > p->max)
		return -EINVAL;
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int kstream_param_get(char *buf, const struct kernel_param *kp)
{
	const struct kstream_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

static const struct kernel_param_ops kstream_param_ops = {
	.set = kstream_param_set,
	.get = kstream_param_get,
};

static struct kstream_param kstream_p_mem_default = {
	.val = &kstream_mem_default, .min = KSTREAM_BUF_MIN, .max = KSTREAM_BUF_MAX,
};
module_param_cb(mem_default, &kstream_param_ops, &kstream_p_mem_default, 0644);
MODULE_PARM_DESC(mem_default,
		 "Receive ring bytes of new endpoints (FI_OPT_RECV_BUF_SIZE default; 4096..268435456, default 32768)");

static struct kstream_param kstream_p_wmem_default = {
	.val = &kstream_wmem_default, .min = KSTREAM_BUF_MIN, .max = KSTREAM_BUF_MAX,
};
module_param_cb(wmem_default, &kstream_param_ops, &kstream_p_wmem_default, 0644);
MODULE_PARM_DESC(wmem_default,
		 "Send buffer bytes of new endpoints (FI_OPT_SEND_BUF_SIZE default; 4096..268435456, default 32768)");

static struct kstream_param kstream_p_sqsize_default = {
	.val = &kstream_sqsize_default, .min = KSTREAM_QSIZE_MIN, .max = KSTREAM_QSIZE_MAX,
};
module_param_cb(sqsize_default, &kstream_param_ops, &kstream_p_sqsize_default, 0644);
MODULE_PARM_DESC(sqsize_default,
		 "Send queue size (FI_OPT_TX_SIZE default; 16..65534, default 384; capped by the core provider)");

static struct kstream_param kstream_p_rqsize_default = {
	.val = &kstream_rqsize_default, .min = KSTREAM_QSIZE_MIN, .max = KSTREAM_QSIZE_MAX,
};
module_param_cb(rqsize_default, &kstream_param_ops, &kstream_p_rqsize_default, 0644);
MODULE_PARM_DESC(rqsize_default,
		 "Receive queue size and credits (FI_OPT_RX_SIZE default; 16..65534, default 384; capped by the core provider)");

static struct kstream_param kstream_p_inline_default = {
	.val = &kstream_inline_default, .min = 0, .max = KSTREAM_INLINE_MAX,
};
module_param_cb(inline_default, &kstream_param_ops, &kstream_p_inline_default, 0644);
MODULE_PARM_DESC(inline_default,
		 "Inline data size asked of the core provider (FI_OPT_KSTREAM_INLINE default; 0..65536, default 64)");

static struct kstream_param kstream_p_iomap_size = {
	.val = &kstream_iomap_size, .min = 0, .max = KSTREAM_IOMAP_MAX,
};
module_param_cb(iomap_size, &kstream_param_ops, &kstream_p_iomap_size, 0644);
MODULE_PARM_DESC(iomap_size,
		 "Direct placement slots offered to the peer (FI_OPT_KSTREAM_IOMAPSIZE default; 0..32512, default 0)");

static struct kstream_param kstream_p_polling_time = {
	.val = &kstream_polling_time, .min = 0, .max = 1000000,
};
module_param_cb(polling_time, &kstream_param_ops, &kstream_p_polling_time, 0644);
MODULE_PARM_DESC(polling_time,
		 "Microseconds the socket layer polls for data before sleeping (0..1000000, default 10)");

static struct kstream_param kstream_p_wake_up_interval = {
	.val = &kstream_wake_up_interval, .min = 1, .max = 3600000,
};
module_param_cb(wake_up_interval, &kstream_param_ops, &kstream_p_wake_up_interval, 0644);
MODULE_PARM_DESC(wake_up_interval,
		 "Longest sleep of the socket layer's waits in ms before it re-checks the stream (1..3600000, default 5000)");

#ifdef KOFI_KSTREAM_TEST_HOOK
static bool kstream_test_msg_send;

/**
 * kstream_test_set_msg_send() - test hook: the iWARP mode over any core
 * @on: from now on, infos and endpoints over a core with remote CQ data
 *	use KSTREAM_MSG_SEND too (if its inject size allows it)
 *
 * Built only with the KUnit suites (CONFIG_KOFI_KUNIT_TEST), so that they
 * run rsockets' iWARP mode over ksocket on loopback; the setting is read
 * by kstream_core_mode() when an info is made and when an endpoint is
 * enabled.
 *
 * Context: any context.
 */
void kstream_test_set_msg_send(bool on)
{
	WRITE_ONCE(kstream_test_msg_send, on);
}
EXPORT_SYMBOL_GPL(kstream_test_set_msg_send);

static bool kstream_test_no_cq_data(void)
{
	return READ_ONCE(kstream_test_msg_send);
}

static atomic_t kstream_test_hellos_lost = ATOMIC_INIT(0);

/**
 * kstream_test_lose_hellos() - test hook: lose the next hellos
 * @n: the next @n credits-only messages a connecting side sends before it
 *	heard its peer (kstream_ep.hello_sent) count as sent but are not
 *	posted, as if the peer never read them
 *
 * Built only with the KUnit suites (CONFIG_KOFI_KUNIT_TEST).
 *
 * Context: any context.
 */
void kstream_test_lose_hellos(int n)
{
	atomic_set(&kstream_test_hellos_lost, n);
}
EXPORT_SYMBOL_GPL(kstream_test_lose_hellos);

/**
 * kstream_test_hello_lost() - whether the test hook loses this hello
 *
 * Context: any context.
 * Return: true if the caller is to count its hello as sent without
 * posting it.
 */
bool kstream_test_hello_lost(void)
{
	return atomic_dec_if_positive(&kstream_test_hellos_lost) >= 0;
}
#else
static bool kstream_test_no_cq_data(void)
{
	return false;
}
#endif

/**
 * kstream_core_mode() - how a stream over a core carries its messages
 * @core: the core FI_EP_MSG info
 *
 * The one place the choice is made: writes with immediate where the core
 * delivers 32 bits of remote CQ data, else (ib_verbs on iWARP) rsockets'
 * iWARP mode, writes followed by 4-byte sends, which the core must be able
 * to send inline (kstream_msg_mode_choose()).
 *
 * Context: any context.
 * Return: KSTREAM_MSG_IMM or KSTREAM_MSG_SEND; -EOPNOTSUPP if neither way
 * works over @core.
 */
int kstream_core_mode(const struct fi_info *core)
{
	bool cq_data = (core->caps & FI_REMOTE_CQ_DATA) && core->domain_attr &&
		       core->domain_attr->cq_data_size >= sizeof(u32) &&
		       !kstream_test_no_cq_data();

	return kstream_msg_mode_choose(cq_data, core->tx_attr ?
				       core->tx_attr->inject_size : 0);
}

/*
 * Hints for the core query: MSG endpoints with RMA.  The messages of the
 * stream are writes with immediate on a core with remote CQ data, or
 * writes and sends without (kstream_core_mode()).
 */
static void kstream_core_hints(struct fi_info *h)
{
	h->caps = FI_MSG | FI_RMA;
	h->mode = FI_RX_CQ_DATA;
	h->ep_attr->type = FI_EP_MSG;
}

/* The kstream info over a core FI_EP_MSG info; NULL if out of memory. */
static struct fi_info *kstream_info_from_core(const struct fi_info *core)
{
	struct fi_info *info = fi_dupinfo(core, GFP_KERNEL);

	if (!info)
		return NULL;
	info->handle = NULL;
	info->caps = KSTREAM_CAPS;
	info->mode = 0;
	memset(info->tx_attr, 0, sizeof(*info->tx_attr));
	info->tx_attr->caps = KSTREAM_CAPS;
	info->tx_attr->size = READ_ONCE(kstream_sqsize_default);
	info->tx_attr->iov_limit = KSTREAM_IOV_LIMIT;
	memset(info->rx_attr, 0, sizeof(*info->rx_attr));
	info->rx_attr->caps = KSTREAM_CAPS;
	info->rx_attr->size = READ_ONCE(kstream_rqsize_default);
	info->rx_attr->iov_limit = KSTREAM_IOV_LIMIT;
	info->rx_attr->total_buffered_recv = READ_ONCE(kstream_mem_default);
	memset(info->ep_attr, 0, sizeof(*info->ep_attr));
	info->ep_attr->type = FI_EP_SOCK_STREAM;
	info->ep_attr->protocol_version = KSTREAM_PROTO_VERSION;
	info->ep_attr->max_msg_size = INT_MAX;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;
	info->domain_attr->domain = NULL;
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_AUTO;
	info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->mr_mode = 0;
	info->domain_attr->mr_key_size = 0;
	info->domain_attr->cq_data_size = 0;
	info->domain_attr->cq_cnt = 0;
	info->domain_attr->mr_cnt = 0;
	info->domain_attr->mr_iov_limit = 0;
	info->domain_attr->caps = 0;
	info->domain_attr->mode = 0;
	return info;
}

static int kstream_getinfo(u32 version, const struct fi_info *hints,
			   u64 flags, struct fi_info **info)
{
	const struct fi_info *core;
	struct fi_info *head, *cur, **pos;
	int ret;

	/*
	 * Streams only for who asks for them: FI_EP_SOCK_STREAM, or any type
	 * with kstream named in prov_name; a user asking for anything keeps
	 * getting the core providers' infos first.
	 */
	if (hints->ep_attr->type == FI_EP_UNSPEC) {
		if (!hints->fabric_attr->prov_name ||
		    !strstr(hints->fabric_attr->prov_name, KSTREAM_PROV_NAME))
			return -ENODATA;
	} else if (hints->ep_attr->type != FI_EP_SOCK_STREAM) {
		return -ENODATA;
	}
	if (hints->caps & ~KSTREAM_CAPS)
		return -ENODATA;
	ret = kofi_util_getinfo(&kstream_util, version, hints, flags, &head);
	if (ret)
		return ret;
	/* Only over a core that can carry the messages one way or the other. */
	for (pos = &head; *pos;) {
		cur = *pos;
		core = kofi_util_info_core(cur);
		if (core && kstream_core_mode(core) >= 0) {
			pos = &cur->next;
			continue;
		}
		*pos = cur->next;
		cur->next = NULL;
		fi_freeinfo(cur);
	}
	if (!head)
		return -ENODATA;
	*info = head;
	return 0;
}

/* ---- domain and fabric: the utility objects ---- */

static const struct fi_ops_domain kstream_domain_ops = {
	.endpoint = kstream_ep_open,
};

static int kstream_domain_open(struct fid_fabric *fabric,
			       struct fi_info *info,
			       struct fid_domain **domain, void *context)
{
	return kofi_util_domain_open(fabric, info, &kstream_domain_ops, domain,
				     context);
}

static const struct fi_ops_fabric kstream_fabric_ops = {
	.domain = kstream_domain_open,
	.passive_ep = kstream_pep_open,
	.eq_open = kofi_eq_open_generic,
};

static int kstream_fabric_open(struct fi_fabric_attr *attr,
			       struct fid_fabric **fabric, void *context)
{
	return kofi_util_fabric_open(&kstream_util, attr, &kstream_fabric_ops,
				     fabric, context);
}

/* A core connection request whose data is not rsockets v1 is rejected. */
static int kstream_connreq_check(const struct fi_info *core, const void *data,
				 size_t len)
{
	struct kstream_conn_data c;

	return kstream_conn_unpack(data, len, &c);
}

struct kofi_provider kstream_prov = {
	.name = KSTREAM_PROV_NAME,
	.version = KSTREAM_PROV_VERSION,
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.owner = THIS_MODULE,
	.priority = KOFI_PRIO_UTIL,
	.flags = KOFI_PROV_UTIL,
	.getinfo = kstream_getinfo,
	.fabric = kstream_fabric_open,
};

struct kofi_util_prov kstream_util = {
	.prov = &kstream_prov,
	.core_hints = kstream_core_hints,
	.info = kstream_info_from_core,
	.connreq = kstream_connreq_check,
};

static int __init kstream_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct kstream_conn_wire) != KSTREAM_CONN_LEN_EXT);
	kstream_wq = alloc_workqueue("kofi_kstream", WQ_HIGHPRI, 0);
	if (!kstream_wq)
		return -ENOMEM;
	kstream_util.wq = kstream_wq;
	ret = kofi_provider_register(&kstream_prov);
	if (ret) {
		destroy_workqueue(kstream_wq);
		return ret;
	}
	return 0;
}

static void __exit kstream_exit(void)
{
	kofi_provider_deregister(&kstream_prov);
	destroy_workqueue(kstream_wq);
}

module_init(kstream_init);
module_exit(kstream_exit);

MODULE_DESCRIPTION("kOFI kstream provider: byte streams over RMA (rsockets v1)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_KOFI_PROV(KSTREAM_PROV_NAME);
