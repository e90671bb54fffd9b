# SPDX-License-Identifier: GPL-2.0
# Soft-iWARP for the ib_verbs VM tests; source after lib.sh.  rdma_cm
# picks rxe0 when rxe0 and siw0 share the NIC, so siw_up deletes rxe0
# and adds siw0 on the guests' link; siw_down undoes it, rxe0 back for
# the tests that follow in the same boot.  Both are checks and may run
# again (a device already there or already gone is left as it is).

SIW_K=/lib/modules/$(uname -r)

siw_active() { rdma link show | grep -q 'siw0.*ACTIVE'; }
rxe_active() { rdma link show | grep -q 'rxe0.*ACTIVE'; }

siw_up() {
	if rdma link show | grep -q '^link rxe0/'; then
		check "rdma link delete rxe0" rdma link delete rxe0
	fi
	module_loaded libcrc32c || check "insmod libcrc32c" insmod $SIW_K/libcrc32c.ko
	module_loaded siw || check "insmod siw" insmod $SIW_K/siw.ko
	if ! rdma link show | grep -q '^link siw0/'; then
		check "rdma link add siw0 on $KOFI_DEV" \
			rdma link add siw0 type siw netdev "$KOFI_DEV"
	fi
	check "siw0 is ACTIVE" wait_for 30 siw_active
}

siw_down() {
	if rdma link show | grep -q '^link siw0/'; then
		check "rdma link delete siw0" rdma link delete siw0
	fi
	check "rmmod siw" rmmod siw
	check "rdma link add rxe0 back" rdma link add rxe0 type rxe netdev "$KOFI_DEV"
	check "rxe0 is ACTIVE" wait_for 30 rxe_active
}
