#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kofi-link-mtu: 9000
# The pingpong and bandwidth samples over FI_EP_RDM endpoints of the rds
# provider (ep_type=rdm), kernel to kernel across the two-guest link over
# RDS/TCP, every transfer verified: the samples' own exchange (names
# over a TCP control connection, then their sync messages over the
# fabric) with sizes from 0 B to RDS's largest message, 1 MiB, and the
# pingpong speaking fi_pingpong's "-e rdm" protocol (fipp=1) on both
# sides with fi_pingpong's whole "-S all" list of sizes.  Sizes below the
# info's inject_size (256 B) go by fi_inject.  Then both samples with
# mode=tagged (fi_tsend/fi_trecv on endpoints with FI_TAGGED, whose
# messages carry rds's header) up to the largest tagged message, 1 MiB
# less the 24-byte header.  Then the pingpong over IPv6 (the guests'
# IPv6 addresses: FI_SOCKADDR_IN6 endpoints; the KUnit suite has the
# header endpoints on ::1), once RDS/TCP's IPv6 connection is made from
# guest 0 as rds_load makes the IPv4 one (rds_tcp_connect).  Then the
# modules unload.
. ./lib.sh
. ./rds-lib.sh

# A few seconds of transfers: a 1 MiB message takes ~25 ms each way
# over RDS/TCP under TCG, far longer on the sanitizer kernel.
RDM="prov=rds ep_type=rdm verify=1"

check "link to the peer" wait_for 180 ping -c 1 -W 1 "$KOFI_PEER"
rds_load rds_tcp

if [ "$KOFI_HOST" = 0 ]; then
	peer="" peer6="addr=$KOFI_SELF6"
else
	peer="addr=$KOFI_PEER" peer6="addr=$KOFI_PEER6"
fi

pp "rdm pingpong" 7571 $peer $RDM \
	sizes=0,1,64,255,256,4096,65536,1048576 iters=$(scaled 8 1)
pair kofi_sample_bandwidth "rdm bandwidth" 7572 $peer $RDM \
	sizes=1,4096,65536,1048576 iters=$(scaled 16 2)
pp "rdm pingpong, fi_pingpong protocol, -S all" 7573 $peer $RDM fipp=1 \
	ctrl_port=7573 sizes=all iters=$(scaled 2 1)
pp "rdm pingpong, tagged" 7574 $peer $RDM mode=tagged \
	sizes=0,255,256,1048552 iters=$(scaled 4 1)
pair kofi_sample_bandwidth "rdm bandwidth, tagged" 7575 $peer $RDM \
	mode=tagged sizes=1,1048552 iters=$(scaled 8 2)
pair kofi_sample_rdsraw "raw RDS pingpong" 7576 $peer mode=pingpong \
	sizes=0,64,1048576 iters=$(scaled 4 1)
pair kofi_sample_rdsraw "raw RDS bandwidth" 7577 $peer mode=bandwidth \
	sizes=65536,1048576 iters=$(scaled 8 2)
check "IPv6 address usable" wait_for 30 ping -6 -c 1 -W 1 "$KOFI_PEER6"
rds_tcp_connect "$KOFI_SELF6" "$KOFI_PEER6"
pp "rdm pingpong, IPv6" 7578 $peer6 $RDM sizes=0,64,65536,1048576 \
	iters=$(scaled 4 1)
pp "rdm pingpong RMA write with CQ data" 7579 $peer $RDM op=write \
	sizes=1,4096,65536,1048520 iters=$(scaled 4 1)
pp "rdm RMA read" 7580 $peer $RDM op=read sizes=1,4096,65536,1048520 \
	iters=$(scaled 4 1)
pair kofi_sample_bandwidth "rdm bandwidth RMA write" 7581 $peer $RDM \
	op=write sizes=1,4096,65536 iters=$(scaled 16 4)
pair kofi_sample_bandwidth "rdm bandwidth RMA read" 7582 $peer $RDM \
	op=read sizes=1,4096,65536 iters=$(scaled 16 4)

rds_unload
finish
