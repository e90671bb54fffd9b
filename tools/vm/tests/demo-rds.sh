# SPDX-License-Identifier: GPL-2.0
# make demo, rds part (sourced by demo.sh with kofi and the providers
# loaded): the pingpong and bandwidth samples on reliable-datagram
# endpoints (FI_EP_RDM) of the rds provider over RDS/TCP across the two
# guests, every transfer verified, their result rows shown.

K=/lib/modules/$(uname -r)
if ! module_loaded kofi_rds; then
	say "kofi_rds is not built: no rds part"
elif [ ! -e "$K/rds_tcp.ko" ] && ! module_loaded rds_tcp; then
	say "this kernel has no RDS/TCP: no rds part"
else
	for m in rds rds_tcp; do
		module_loaded $m || check "insmod $m" insmod "$K/$m.ko"
	done
	rds_demo="prov=rds ep_type=rdm verify=1"
	[ "$KOFI_HOST" = 0 ] && rds_to="" || rds_to="addr=$KOFI_PEER"
	pp "rds pingpong" 7551 $rds_to $rds_demo sizes=64,4096,65536 iters=20
	pair kofi_sample_bandwidth "rds bandwidth" 7552 $rds_to $rds_demo \
		sizes=4096,65536 iters=200
fi
