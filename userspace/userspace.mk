# SPDX-License-Identifier: GPL-2.0
#
# The userspace of cpuset.memory_toss_cache: cpuset-toss, the OCI hook,
# the runc wrapper, the Slurm plugin, the systemd unit, the man pages.
# Included by the repository's Makefile and by the Makefile of the
# userspace-only source tree (make dist-userspace); needs TOP (the tree
# holding userspace/) and BUILD (the output: $(BUILD)/userspace).

.PHONY: userspace install uninstall

# Where `make install` puts the userspace parts (cpuset-toss, the OCI hook,
# the systemd unit, the Slurm plugin).  The directories other programs
# search do not follow PREFIX: hooks.d where podman and CRI-O look, the
# plugin in Slurm's PluginDir, units where systemd's pkg-config file says.
DESTDIR    ?=
PREFIX     ?= /usr
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/cpuset-toss
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/cpuset-toss
SYSCONFDIR ?= /etc
UNITDIR    ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
TMPFILESDIR ?= $(or $(shell pkg-config --variable=tmpfilesdir systemd 2>/dev/null),/usr/lib/tmpfiles.d)
HOOKSDIR   ?= /usr/share/containers/oci/hooks.d
RUNC       ?= /usr/sbin/runc
MULTIARCH  := $(shell gcc -print-multiarch 2>/dev/null)
SLURM_PLUGINDIR ?= /usr/lib/$(MULTIARCH)/slurm-wlm

USRC       := $(TOP)/userspace
UOUT       := $(BUILD)/userspace
# Debian's hardening flags (dpkg-buildflags, hardening=+all: stack
# protector, fortify, relro and bindnow, PIE); CFLAGS, CPPFLAGS and
# LDFLAGS from the command line or the environment win, as in a package.
BFLAGS      = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
ifeq ($(origin CFLAGS),undefined)
CFLAGS     := $(shell $(BFLAGS) CFLAGS 2>/dev/null || echo -O2 -g)
endif
ifeq ($(origin CPPFLAGS),undefined)
CPPFLAGS   := $(shell $(BFLAGS) CPPFLAGS 2>/dev/null)
endif
ifeq ($(origin LDFLAGS),undefined)
LDFLAGS    := $(shell $(BFLAGS) LDFLAGS 2>/dev/null)
endif
ULIBS_PKG  := jansson hwloc
UCC         = gcc $(CPPFLAGS) $(CFLAGS) -Wall -Wextra -Werror -I$(USRC) \
	$(shell pkg-config --cflags $(ULIBS_PKG) 2>/dev/null) \
	-DCPUSET_TOSS_BIN='"$(BINDIR)/cpuset-toss"'
ULIBS       = $(shell pkg-config --libs $(ULIBS_PKG) 2>/dev/null)
ULIB       := $(USRC)/toss.c $(USRC)/toss.h
# The Slurm plugin needs libslurm-dev's <slurm/spank.h> (make deps installs
# it); without it, `make install` installs everything else and says so.
HAVE_SPANK := $(wildcard /usr/include/slurm/spank.h)
UPROGS     := $(UOUT)/cpuset-toss $(UOUT)/cpuset-toss-oci-hook $(UOUT)/cpuset-toss-runc \
	$(if $(HAVE_SPANK),$(UOUT)/cpuset_toss.so)

# The userspace parts, built against the host's libc and libslurm-dev.
userspace: $(UPROGS)

$(UOUT)/cpuset-toss: $(USRC)/cpuset-toss.c $(USRC)/toss-unit.c $(ULIB)
	@mkdir -p $(@D)
	$(UCC) -o $@ $(filter %.c,$^) $(LDFLAGS) $(ULIBS) $(shell pkg-config --libs libsystemd)

$(UOUT)/cpuset-toss-oci-hook: $(USRC)/oci-hook.c $(USRC)/oci-state.c $(USRC)/oci-state.h $(ULIB)
	@mkdir -p $(@D)
	$(UCC) -o $@ $(filter %.c,$^) $(LDFLAGS) $(ULIBS)

# The runc wrapper for Docker's daemon.json "runtimes" (and containerd's
# BinaryName): the paths it execs are fixed at build time, never PATH.
$(UOUT)/cpuset-toss-runc: $(USRC)/docker/cpuset-toss-runc.c $(USRC)/toss.h
	@mkdir -p $(@D)
	$(UCC) -DCPUSET_TOSS_HOOK='"$(LIBEXECDIR)/cpuset-toss-oci-hook"' \
		-DCPUSET_TOSS_RUNC='"$(RUNC)"' -o $@ $(filter %.c,$^) $(LDFLAGS) \
		$(shell pkg-config --libs jansson)

# Only the slurm_spank_* entry points are exported (the plugin's own
# visibility attributes); slurmstepd dlopen()s it, mode 0644 like Slurm's.
$(UOUT)/cpuset_toss.so: $(USRC)/slurm/cpuset_toss.c $(ULIB)
	@mkdir -p $(@D)
	$(UCC) -fPIC -shared -fvisibility=hidden -o $@ $(filter %.c,$^) $(LDFLAGS) $(ULIBS)

# Everything a site installs.  A configuration file that exists is never
# overwritten; the policy file is not installed at all (its defaults are
# the safe ones), an example goes to DOCDIR.
install: userspace
	install -D -m 0755 $(UOUT)/cpuset-toss $(DESTDIR)$(BINDIR)/cpuset-toss
	install -D -m 0644 $(USRC)/man/cpuset-toss.8 $(DESTDIR)$(MANDIR)/man8/cpuset-toss.8
	install -D -m 0644 $(USRC)/man/cpuset-toss.conf.5 $(DESTDIR)$(MANDIR)/man5/cpuset-toss.conf.5
	install -D -m 0644 $(USRC)/cpuset-toss.conf.example $(DESTDIR)$(DOCDIR)/cpuset-toss.conf.example
	# OCI hook
	install -D -m 0755 $(UOUT)/cpuset-toss-oci-hook $(DESTDIR)$(LIBEXECDIR)/cpuset-toss-oci-hook
	install -D -m 0644 $(USRC)/man/cpuset-toss-oci-hook.8 $(DESTDIR)$(MANDIR)/man8/cpuset-toss-oci-hook.8
	sed 's|/usr/libexec/cpuset-toss|$(LIBEXECDIR)|' $(USRC)/oci/50-cpuset-toss.json | \
		install -D -m 0644 /dev/stdin $(DESTDIR)$(HOOKSDIR)/50-cpuset-toss.json
	# Docker
	install -D -m 0755 $(UOUT)/cpuset-toss-runc $(DESTDIR)$(LIBEXECDIR)/cpuset-toss-runc
	install -D -m 0644 $(USRC)/man/cpuset-toss-runc.8 $(DESTDIR)$(MANDIR)/man8/cpuset-toss-runc.8
	install -D -m 0644 $(USRC)/docker/daemon.json.example $(DESTDIR)$(DOCDIR)/docker-daemon.json.example
	# systemd
	sed 's|/usr/bin/cpuset-toss|$(BINDIR)/cpuset-toss|' '$(USRC)/systemd/cpuset-toss@.service' | \
		install -D -m 0644 /dev/stdin '$(DESTDIR)$(UNITDIR)/cpuset-toss@.service'
	install -D -m 0644 '$(USRC)/man/cpuset-toss@.service.8' '$(DESTDIR)$(MANDIR)/man8/cpuset-toss@.service.8'
	install -D -m 0644 $(USRC)/systemd/cpuset-toss.tmpfiles $(DESTDIR)$(TMPFILESDIR)/cpuset-toss.conf
	for f in service slice request after; do \
		sed 's|/usr/bin/cpuset-toss|$(BINDIR)/cpuset-toss|' $(USRC)/systemd/cpuset-toss-$$f.conf | \
			install -D -m 0644 /dev/stdin $(DESTDIR)$(DOCDIR)/examples/cpuset-toss-$$f.conf || exit 1; \
	done
	# Slurm
	$(if $(HAVE_SPANK),install -D -m 0644 $(UOUT)/cpuset_toss.so $(DESTDIR)$(SLURM_PLUGINDIR)/cpuset_toss.so,\
		@echo 'install: no <slurm/spank.h> (libslurm-dev): the Slurm plugin is not built')
	install -D -m 0644 $(USRC)/man/spank-cpuset-toss.8 $(DESTDIR)$(MANDIR)/man8/spank-cpuset-toss.8
	[ -e $(DESTDIR)$(SYSCONFDIR)/slurm/plugstack.conf.d/cpuset-toss.conf ] || \
		install -D -m 0644 $(USRC)/slurm/plugstack.conf \
			$(DESTDIR)$(SYSCONFDIR)/slurm/plugstack.conf.d/cpuset-toss.conf

# What `make install` put there, but configuration files under /etc.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cpuset-toss $(DESTDIR)$(LIBEXECDIR)/cpuset-toss-oci-hook \
		$(DESTDIR)$(LIBEXECDIR)/cpuset-toss-runc $(DESTDIR)$(HOOKSDIR)/50-cpuset-toss.json \
		'$(DESTDIR)$(UNITDIR)/cpuset-toss@.service' $(DESTDIR)$(SLURM_PLUGINDIR)/cpuset_toss.so \
		$(DESTDIR)$(TMPFILESDIR)/cpuset-toss.conf \
		$(DESTDIR)$(MANDIR)/man8/cpuset-toss.8 $(DESTDIR)$(MANDIR)/man8/cpuset-toss-oci-hook.8 \
		$(DESTDIR)$(MANDIR)/man8/cpuset-toss-runc.8 '$(DESTDIR)$(MANDIR)/man8/cpuset-toss@.service.8' \
		$(DESTDIR)$(MANDIR)/man8/spank-cpuset-toss.8 $(DESTDIR)$(MANDIR)/man5/cpuset-toss.conf.5
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
