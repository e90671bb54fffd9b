# SPDX-License-Identifier: GPL-2.0
# make demo, ksocket part (sourced by demo.sh with kofi and the providers
# loaded): the pingpong and bandwidth samples over ksocket across the two
# guests, data verified, their result rows shown.
. ./ksocket-lib.sh

[ "$KOFI_HOST" = 0 ] && ks_to="" || ks_to="addr=$KOFI_PEER"
ks_pair "ksocket pingpong msg" kofi_sample_pingpong 7491 $ks_to op=msg \
	sizes=64,4096,65536 iters=20
[ "$KOFI_HOST" = 1 ] && ks_show
ks_pair "ksocket pingpong RMA write" kofi_sample_pingpong 7492 $ks_to \
	op=write sizes=64,65536 iters=20
[ "$KOFI_HOST" = 1 ] && ks_show
ks_pair "ksocket bandwidth msg" kofi_sample_bandwidth 7493 $ks_to op=msg \
	sizes=4096,65536 iters=200
[ "$KOFI_HOST" = 1 ] && ks_show
ks_pair "ksocket bandwidth RMA read" kofi_sample_bandwidth 7494 $ks_to \
	op=read sizes=65536 iters=100
[ "$KOFI_HOST" = 1 ] && ks_show
