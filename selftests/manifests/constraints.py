#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Constraints files: their pins, and the stand-ins for OpenStack's.

tcib's run_tempest.sh installs a Tempest CR's externalPlugin with
``pip install -c <an OpenStack upper-constraints URL>``: on tcib's
``antelope`` branch (the ``podified-antelope-*`` images, test-operator's
default) the 2023.1 file of releases.openstack.org, on its main branch
(the ``podified-master-*`` images) master's file on opendev. CI cannot
reach either URL, so ``tools/constraints/openstack-<series>.txt`` holds
openstack/requirements' ``upper-constraints.txt`` at one commit of the
series' branch, under a header naming it (``SERIES``, ``stand_in_text``,
``stand_in_origin``). The rest is pure reading of pins and requirement
lines, for the checks that keep the plugin's requirements and the
project's own pins coherent (``requirements_against``). Nothing here
runs git or pip.
"""

import collections
import re
import textwrap

from packaging import requirements as pkg_requirements
from packaging import version as pkg_version

UPSTREAM_REPO = 'openstack/requirements'
UPSTREAM_PATH = 'upper-constraints.txt'

Pin = collections.namedtuple('Pin', 'name version line')
Conflict = collections.namedtuple('Conflict', 'requirement pin')
# NOTE: name: the series (release) as a CLI names it; path: the stand-in
# in this repository; branch: openstack/requirements' branch it is read
# from; url: what run_tempest.sh gives pip -c; tcib: the tcib branch
# whose run_tempest.sh gives that URL, and the images built from it;
# upstream: its name in selftests/manifests/upstream.py COMMITS.
Series = collections.namedtuple('Series',
                                'name path branch url tcib upstream')

SERIES = collections.OrderedDict((s.name, s) for s in (
    Series('2023.1', 'tools/constraints/openstack-2023.1.txt',
           'unmaintained/2023.1',
           'https://releases.openstack.org/constraints/upper/2023.1',
           "tcib's antelope branch (podified-antelope-* images, "
           "test-operator's default)", 'requirements-2023.1'),
    Series('master', 'tools/constraints/openstack-master.txt', 'master',
           'https://opendev.org/openstack/requirements/raw/branch/master/'
           'upper-constraints.txt',
           "tcib's main branch (podified-master-* images)",
           'requirements'),
))
# NOTE: what is installed under a stand-in: requirements.txt in a pod,
# and both files in the Python matrix's venv of the 2023.1 pins.
INSTALLED_UNDER = ('requirements.txt', 'test-requirements.txt')
# NOTE: the series of test-operator's default tempest image, which the
# test-operator stage's first pod stands in for.
DEFAULT_SERIES = '2023.1'

_ORIGIN = re.compile(r'^# %s %s at ([0-9a-f]{40}) \((\d{4}-\d\d-\d\d)\)'
                     % (re.escape(UPSTREAM_REPO), re.escape(UPSTREAM_PATH)),
                     re.M)
_HEADER = (
    'OpenStack {name} upper-constraints ({branch} of {repo}), as '
    "run_tempest.sh of {tcib} gives them to pip for a Tempest CR's "
    'externalPlugin ("pip install -c {url} ./<plugin>"): the '
    'test-operator stage (tools/run-test-operator.sh) installs the plugin '
    'with this file instead, since CI cannot reach that URL. Below the '
    "line that names the commit, the file is upstream's, unchanged. Made "
    'by tools/refresh_openstack_constraints.py; do not edit by hand.')


class ConstraintsError(ValueError):
    """A line of a constraints file pip would not take as a pin."""


def canonical(name):
    """PEP 503's normalised name: oslo.config and oslo-config are one."""
    return re.sub(r'[-_.]+', '-', name).lower()


def pins(text, where='constraints'):
    """{canonical name: Pin} of a constraints file's text.

    Comments, blank lines and ``-c``/``-r`` includes are left out (an
    included file is read on its own). ConstraintsError names the line
    that is not one exact pin (``==`` or ``===``).
    """
    found = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(' #', 1)[0].strip()
        if not line or line.startswith('#') or line.startswith('-'):
            continue
        try:
            req = pkg_requirements.Requirement(line)
        except pkg_requirements.InvalidRequirement as exc:
            raise ConstraintsError('%s line %d: %r is not a requirement '
                                   '(%s)' % (where, number, raw, exc))
        specs = list(req.specifier)
        if len(specs) != 1 or specs[0].operator not in ('==', '==='):
            raise ConstraintsError('%s line %d: %r pins no one version'
                                   % (where, number, raw))
        # NOTE: upstream once pinned one package twice under exclusive
        # python_version markers; the last line wins here, as no marker
        # is evaluated (none is in the files this project reads).
        found[canonical(req.name)] = Pin(req.name, specs[0].version, raw)
    return found


def requirement_lines(text):
    """[packaging Requirement] of a requirements file's text."""
    reqs = []
    for raw in text.splitlines():
        line = raw.split('#', 1)[0].strip()
        if line and not line.startswith('-'):
            reqs.append(pkg_requirements.Requirement(line))
    return reqs


def requirements_against(reqs, pinned):
    """[Conflict] of the requirements whose range excludes the pin.

    A requirement on a package the file does not pin cannot conflict
    with it (pip takes the newest release that fits).
    """
    conflicts = []
    for req in reqs:
        pin = pinned.get(canonical(req.name))
        if pin is None:
            continue
        try:
            ok = req.specifier.contains(pkg_version.Version(pin.version),
                                        prereleases=True)
        except pkg_version.InvalidVersion:
            # NOTE: "===" may pin a string that is no PEP 440 version.
            ok = str(req.specifier) in ('', '===' + pin.version)
        if not ok:
            conflicts.append(Conflict(req, pin))
    return conflicts


def stand_in_text(upstream_text, commit, date, series=DEFAULT_SERIES):
    """The stand-in file of a series: its header, then upstream's text.

    The header names the series, its URL, commit and date.
    """
    if not re.match(r'^[0-9a-f]{40}$', commit):
        raise ValueError('want a full commit id, not %r' % commit)
    pins(upstream_text, UPSTREAM_PATH)
    known = SERIES[series]
    about = _HEADER.format(repo=UPSTREAM_REPO, name=known.name,
                           branch=known.branch, url=known.url,
                           tcib=known.tcib)
    lines = textwrap.wrap(about, 70, break_long_words=False,
                          break_on_hyphens=False)
    lines.append('%s %s at %s (%s)' % (UPSTREAM_REPO, UPSTREAM_PATH,
                                       commit, date))
    return ''.join('# %s\n' % line for line in lines) + upstream_text


def stand_in_origin(text):
    """(commit, date) the stand-in's header names; ValueError without one."""
    match = _ORIGIN.search(text)
    if not match:
        raise ValueError('no line "# %s %s at <commit> (<date>)"' % (
            UPSTREAM_REPO, UPSTREAM_PATH))
    return match.group(1), match.group(2)


def upstream_part(text):
    """What follows the stand-in's header: upstream's text, unchanged."""
    match = _ORIGIN.search(text)
    if not match:
        raise ValueError('no line "# %s %s at <commit> (<date>)"' % (
            UPSTREAM_REPO, UPSTREAM_PATH))
    return text[match.end() + 1:]


def changed_pins(old, new):
    """[(name, old version or None, new version or None)], sorted."""
    names = sorted(set(old) | set(new))
    changes = []
    for name in names:
        before = old[name].version if name in old else None
        after = new[name].version if name in new else None
        if before != after:
            changes.append((name, before, after))
    return changes
