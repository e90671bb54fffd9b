// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kOFI core: error numbers to text.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include "kofi_core.h"

static const char *kofi_linux_strerror(int e)
{
	switch (e) {
	case 0: return "Success";
	case EPERM: return "Operation not permitted";
	case ENOENT: return "No such file or directory";
	case ESRCH: return "No such process";
	case EINTR: return "Interrupted system call";
	case EIO: return "I/O error";
	case ENXIO: return "No such device or address";
	case E2BIG: return "Argument list too long";
	case ENOEXEC: return "Exec format error";
	case EBADF: return "Bad file number";
	case ECHILD: return "No child processes";
	case EAGAIN: return "Try again (resource temporarily unavailable)";
	case ENOMEM: return "Out of memory";
	case EACCES: return "Permission denied";
	case EFAULT: return "Bad address";
	case EBUSY: return "Device or resource busy";
	case EEXIST: return "File exists";
	case EXDEV: return "Cross-device link";
	case ENODEV: return "No such device";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case EINVAL: return "Invalid argument";
	case ENFILE: return "File table overflow";
	case EMFILE: return "Too many open files";
	case ENOTTY: return "Not a typewriter";
	case EFBIG: return "File too large";
	case ENOSPC: return "No space left on device";
	case ESPIPE: return "Illegal seek";
	case EROFS: return "Read-only file system";
	case EMLINK: return "Too many links";
	case EPIPE: return "Broken pipe";
	case EDOM: return "Math argument out of domain of func";
	case ERANGE: return "Math result not representable";
	case EDEADLK: return "Resource deadlock would occur";
	case ENAMETOOLONG: return "File name too long";
	case ENOLCK: return "No record locks available";
	case FI_ENOSYS: return "Function not implemented";
	case ENOTEMPTY: return "Directory not empty";
	case ELOOP: return "Too many symbolic links encountered";
	case ENOMSG: return "No message of desired type";
	case EIDRM: return "Identifier removed";
	case ENOSTR: return "Device not a stream";
	case ENODATA: return "No data available";
	case ETIME: return "Timer expired";
	case ENOSR: return "Out of streams resources";
	case ENOLINK: return "Link has been severed";
	case EPROTO: return "Protocol error";
	case EBADMSG: return "Not a data message";
	case EOVERFLOW: return "Value too large for defined data type";
	case EILSEQ: return "Illegal byte sequence";
	case EUSERS: return "Too many users";
	case ENOTSOCK: return "Socket operation on non-socket";
	case EDESTADDRREQ: return "Destination address required";
	case EMSGSIZE: return "Message too long";
	case EPROTOTYPE: return "Protocol wrong type for socket";
	case ENOPROTOOPT: return "Protocol not available";
	case EPROTONOSUPPORT: return "Protocol not supported";
	case ESOCKTNOSUPPORT: return "Socket type not supported";
	case EOPNOTSUPP: return "Operation not supported on transport endpoint";
	case EPFNOSUPPORT: return "Protocol family not supported";
	case EAFNOSUPPORT: return "Address family not supported by protocol";
	case EADDRINUSE: return "Address already in use";
	case EADDRNOTAVAIL: return "Cannot assign requested address";
	case ENETDOWN: return "Network is down";
	case ENETUNREACH: return "Network is unreachable";
	case ENETRESET: return "Network dropped connection because of reset";
	case ECONNABORTED: return "Software caused connection abort";
	case ECONNRESET: return "Connection reset by peer";
	case ENOBUFS: return "No buffer space available";
	case EISCONN: return "Transport endpoint is already connected";
	case ENOTCONN: return "Transport endpoint is not connected";
	case ESHUTDOWN: return "Cannot send after transport endpoint shutdown";
	case ETOOMANYREFS: return "Too many references: cannot splice";
	case ETIMEDOUT: return "Connection timed out";
	case ECONNREFUSED: return "Connection refused";
	case EHOSTDOWN: return "Host is down";
	case EHOSTUNREACH: return "No route to host";
	case EALREADY: return "Operation already in progress";
	case EINPROGRESS: return "Operation now in progress";
	case ESTALE: return "Stale file handle";
	case EDQUOT: return "Quota exceeded";
	case ECANCELED: return "Operation Canceled";
	case ENOKEY: return "Required key not available";
	case EKEYEXPIRED: return "Key has expired";
	case EKEYREVOKED: return "Key has been revoked";
	case EKEYREJECTED: return "Key was rejected by service";
	case EOWNERDEAD: return "Owner died";
	case ENOTRECOVERABLE: return "State not recoverable";
	case ERFKILL: return "Operation not possible due to RF-kill";
	case EHWPOISON: return "Memory page has hardware error";
	case EREMOTEIO: return "Remote I/O error";
	case ERESTARTSYS: return "Interrupted, restart system call";
	case ENOTSUPP: return "Operation is not supported";
	case ETOOSMALL: return "Buffer or request is too small";
	case EPROBE_DEFER: return "Driver requests probe retry";
	default: return NULL;
	}
}

/**
 * fi_strerror() - describe an error number
 * @errnum: a Linux errno or kOFI error (FI_EAVAIL, FI_EOTHER), negative
 *	(as returned by kOFI calls) or positive (as in error entries)
 *
 * Context: any context.
 * Return: a constant string; "Unknown error" for numbers it does not know.
 */
const char *fi_strerror(int errnum)
{
	const char *s;
	int e;

	if (errnum == INT_MIN)
		return "Unknown error";
	e = abs(errnum);
	switch (e) {
	case FI_EAVAIL:
		return "Error entry available";
	case FI_EOTHER:
		return "Unspecified provider error";
	}
	s = kofi_linux_strerror(e);
	return s ? s : "Unknown error";
}
EXPORT_SYMBOL_GPL(fi_strerror);
