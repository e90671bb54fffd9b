# SPDX-License-Identifier: GPL-2.0
# make demo, rxm part (sourced by demo.sh with kofi and the providers
# loaded): the pingpong and bandwidth samples on reliable-datagram
# endpoints (FI_EP_RDM) of ksocket;rxm across the two guests, untagged
# and tagged, with eager and segmented sizes, and the pingpong over
# ksocket's own FI_EP_RDM (libfabric's net wire), every transfer
# verified, their result rows shown.

if ! module_loaded kofi_rxm; then
	say "kofi_rxm is not built: no rxm part"
else
	rxm_demo="prov=ksocket;rxm ep_type=rdm verify=1"
	[ "$KOFI_HOST" = 0 ] && rxm_to="" || rxm_to="addr=$KOFI_PEER"
	pp "rxm pingpong msg" 7541 $rxm_to $rxm_demo \
		sizes=64,4096,65536 iters=20
	pp "rxm pingpong tagged" 7542 $rxm_to $rxm_demo mode=tagged \
		sizes=64,4096,65536 iters=20
	pair kofi_sample_bandwidth "rxm bandwidth tagged" 7543 $rxm_to \
		$rxm_demo mode=tagged sizes=4096,65536 iters=200
	pp "ksocket rdm pingpong tagged" 7544 $rxm_to prov=ksocket \
		ep_type=rdm verify=1 mode=tagged sizes=64,4096,65536 iters=20
fi
