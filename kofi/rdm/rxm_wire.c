// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI RDM engine: the connection data of each wire.
 *
 * What the two wires an endpoint may speak do differently when they
 * connect, one small helper each (rxm_proto.h has the formats):
 *
 *   rxm's (libfabric's ofi_rxm): a 24-byte request with the listening
 *   port, the eager limit, "flow control", the receive size and our id;
 *   an accept with the accepter's id, receive size and flow control; a
 *   2-byte reject with a reason ("already connected" for the loser of a
 *   simultaneous connect).  Tagged messages go as the core's own where
 *   it has FI_OPT_TAGGED_RX, else with rxm's header.
 *
 *   net's (libfabric's net provider): 8 bytes both ways - port and a
 *   random id of the endpoint; the accept echoes the request with the
 *   accepter's id, the reject carries the same form and no reason.  The
 *   core claims every message (FI_TAGGED_RX_MSG), tagged ones as tcp's
 *   op 1 (FI_TAGGED_RX_OP); a core without FI_OPT_TAGGED_RX cannot speak
 *   it.
 */
#include "rxm.h"

static size_t rxm_wire_rxm_req(const struct rxm_conn *conn, void *buf)
{
	const struct rxm_ep *ep = conn->ep;

	rxm_cm_req_fill(buf, kofi_sockaddr_port(&ep->name),
			conn->fc ? RXM_FLOW_CTRL_ON : RXM_FLOW_CTRL_OFF,
			ep->info->rx_attr->size, conn->id);
	return sizeof(struct rxm_cm_req);
}

static int rxm_wire_rxm_accepted(struct rxm_conn *conn, const void *data,
				 size_t len)
{
	const struct rxm_cm_accept *acc = data;

	/* an accept without rxm's CM data */
	if (len < sizeof(*acc))
		return -EPROTO;
	conn->peer_id = le64_to_cpu(acc->conn_id);
	conn->peer_fc = acc->flow_ctrl;
	return 0;
}

static bool rxm_wire_rxm_already(const void *data, size_t len)
{
	return rxm_cm_reject_reason(data, len) == RXM_REJECT_ALREADY;
}

static size_t rxm_wire_rxm_reject(const struct rxm_ep *ep, u8 reason,
				  void *buf)
{
	struct rxm_cm_reject *rej = buf;

	rej->version = RXM_CM_VERSION;
	rej->reason = reason;
	return sizeof(*rej);
}

static int rxm_wire_rxm_request(const void *data, size_t len,
				struct rxm_wire_peer *peer)
{
	const struct rxm_cm_req *req = data;
	int ret;

	ret = rxm_cm_req_check(data, len);
	if (ret)
		return ret;
	peer->port = le16_to_cpu(req->port);
	peer->id = le64_to_cpu(req->conn_id);
	peer->fc = req->flow_ctrl;
	return 0;
}

static size_t rxm_wire_rxm_accept(const struct rxm_conn *conn, u16 port,
				  void *buf)
{
	const struct rxm_ep *ep = conn->ep;
	struct rxm_cm_accept *acc = buf;

	memset(acc, 0, sizeof(*acc));
	acc->conn_id = cpu_to_le64(conn->id);
	acc->rx_size = cpu_to_le32(ep->info->rx_attr->size);
	acc->flow_ctrl = conn->fc ? RXM_FLOW_CTRL_ON : RXM_FLOW_CTRL_OFF;
	return sizeof(*acc);
}

const struct rxm_wire rxm_wire_rxm = {
	.trx = &rxm_trx_ops,
	.req = rxm_wire_rxm_req,
	.accepted = rxm_wire_rxm_accepted,
	.already = rxm_wire_rxm_already,
	.reject = rxm_wire_rxm_reject,
	.request = rxm_wire_rxm_request,
	.accept = rxm_wire_rxm_accept,
};

/* net's CM data is the same 8 bytes each way: port and our id. */
static size_t rxm_wire_net_fill(const struct rxm_ep *ep, u16 port, void *buf)
{
	rxm_net_cm_fill(buf, port, ep->net_pid);
	return sizeof(struct rxm_net_cm);
}

static size_t rxm_wire_net_req(const struct rxm_conn *conn, void *buf)
{
	return rxm_wire_net_fill(conn->ep,
				 kofi_sockaddr_port(&conn->ep->name), buf);
}

static int rxm_wire_net_accepted(struct rxm_conn *conn, const void *data,
				 size_t len)
{
	const struct rxm_net_cm *ncm = data;

	if (rxm_net_cm_check(data, len))
		return -EPROTO;
	conn->peer_id = be32_to_cpu(ncm->pid);
	conn->peer_fc = RXM_FLOW_CTRL_OFF;
	return 0;
}

/* net's reject says no reason: its peer refuses for nothing else. */
static bool rxm_wire_net_already(const void *data, size_t len)
{
	return !rxm_net_cm_check(data, len);
}

static size_t rxm_wire_net_reject(const struct rxm_ep *ep, u8 reason,
				  void *buf)
{
	return rxm_wire_net_fill(ep, kofi_sockaddr_port(&ep->name), buf);
}

static int rxm_wire_net_request(const void *data, size_t len,
				struct rxm_wire_peer *peer)
{
	const struct rxm_net_cm *ncm = data;
	int ret;

	ret = rxm_net_cm_check(data, len);
	if (ret)
		return ret;
	peer->port = be16_to_cpu(ncm->port);
	peer->id = be32_to_cpu(ncm->pid);
	peer->fc = RXM_FLOW_CTRL_OFF;
	return 0;
}

/* the request's bytes, with our id */
static size_t rxm_wire_net_accept(const struct rxm_conn *conn, u16 port,
				  void *buf)
{
	return rxm_wire_net_fill(conn->ep, port, buf);
}

const struct rxm_wire rxm_wire_net = {
	.trx = &rxm_net_trx_ops,
	.trx_needed = true,
	.req = rxm_wire_net_req,
	.accepted = rxm_wire_net_accepted,
	.already = rxm_wire_net_already,
	.reject = rxm_wire_net_reject,
	.request = rxm_wire_net_request,
	.accept = rxm_wire_net_accept,
};
