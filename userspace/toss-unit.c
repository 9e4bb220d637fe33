// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libcpusettoss: a systemd unit's cgroup, asked of systemd over D-Bus.
 * Apart from toss.c so that only cpuset-toss(8) links libsystemd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "toss.h"

/**
 * toss_cgroup_from_unit() - a systemd unit's cgroup
 * @unit: the unit's name
 * @cg: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Asks systemd (org.freedesktop.systemd1.Manager.GetUnit) for the unit
 * and reads its ControlGroup property: the path of its cgroup in the
 * unified hierarchy.  With a v1 cpuset hierarchy the same path is looked
 * for there; systemd creates none in it, so that fails (see the man page).
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_from_unit(const char *unit, struct toss_cgroup *cg,
			  char *err, size_t errlen)
{
	static const char *const ifaces[] = {
		".service", "Service", ".slice", "Slice", ".scope", "Scope",
		".socket", "Socket", ".mount", "Mount", ".swap", "Swap",
	};
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path, *dot = strrchr(unit, '.');
	char iface[64] = "", *cgroup = NULL;
	sd_bus *bus = NULL;
	size_t i;
	int ret;

	for (i = 0; dot && i < sizeof(ifaces) / sizeof(ifaces[0]); i += 2)
		if (!strcmp(dot, ifaces[i]))
			snprintf(iface, sizeof(iface), "org.freedesktop.systemd1.%s",
				 ifaces[i + 1]);
	if (!iface[0]) {
		snprintf(err, errlen, "unit %s: not a service, slice, scope, socket, mount or swap",
			 unit);
		return -TOSS_EUSAGE;
	}
	ret = sd_bus_open_system(&bus);
	if (ret < 0) {
		snprintf(err, errlen, "cannot connect to systemd: %s", strerror(-ret));
		return -TOSS_ENOCGROUP;
	}
	ret = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
				 "org.freedesktop.systemd1.Manager", "GetUnit", &error,
				 &reply, "s", unit);
	if (ret < 0) {
		snprintf(err, errlen, "unit %s: %s", unit,
			 error.message ? error.message : strerror(-ret));
		ret = -TOSS_ENOCGROUP;
		goto out;
	}
	ret = sd_bus_message_read(reply, "o", &path);
	if (ret >= 0)
		ret = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", path, iface,
						 "ControlGroup", &error, &cgroup);
	if (ret < 0) {
		snprintf(err, errlen, "unit %s: ControlGroup: %s", unit,
			 error.message ? error.message : strerror(-ret));
		ret = -TOSS_ENOCGROUP;
		goto out;
	}
	if (!cgroup[0]) {
		snprintf(err, errlen, "unit %s has no cgroup (is it active?)", unit);
		ret = -TOSS_ENOCGROUP;
		goto out;
	}
	ret = toss_cgroup_from_path(cgroup, cg, err, errlen);
out:
	free(cgroup);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	sd_bus_flush_close_unref(bus);
	return ret;
}
