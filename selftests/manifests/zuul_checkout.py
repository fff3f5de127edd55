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

"""Which code the Zuul jobs test: Zuul's checkout of this project.

A job of this project may run for another project's change (the stanza
another project pastes, etc/zuul/paste-job.yaml): there ``zuul.project``
names that other project, so every path and the plugin under test must
come from ``zuul.projects[<this project>]``, which only exists when the
job lists this project in ``required-projects``. The plugin reaches the
test-operator pod as the controller serves that checkout (the pre_tests
hook sets ``glance_multiapi_served_repository``), so a Depends-On on a
change here is what the pod installs, never a GitHub ref.

Here: the Zuul contexts the jobs are rendered in (this project's pull
request, a periodic build, another project's pull request), and the
problems of a job's required-projects, of its checkout and of the
externalPlugin of its Tempest CR, one line each.
"""

import re

PROJECT_VAR = 'glance_multiapi_project'
SRC_DIR_VAR = 'glance_multiapi_src_dir'
SERVED_VAR = 'glance_multiapi_served_repository'
# NOTE: what the pre_tests hook gives the main play (an address of
# RFC 5737's documentation range).
SERVED = 'http://192.0.2.10:8767/glance-multiapi-tests.git'
OTHER = 'github.com/openstack-k8s-operators/glance-operator'
CHANGE = {'change': '42', 'patchset': 'abc123'}
# NOTE: zuul.project, not zuul.projects[...]: the project whose change
# runs, which is another one when another project runs the job.
ZUUL_PROJECT = re.compile(r'zuul\.project\b(?!s)|zuul\[.project.\]')


def _project(canonical):
    return {'canonical_name': canonical, 'name': canonical.split('/', 1)[-1],
            'src_dir': 'src/' + canonical}


def contexts(this):
    """{context name: (zuul variables, whether it is a change)}."""
    projects = {name: _project(name) for name in (this, OTHER)}

    def zuul(project, change):
        return dict(change, project=_project(project), projects=projects)
    return {
        'pull request': zuul(this, CHANGE),
        'periodic': zuul(this, {}),
        'pull request of %s' % OTHER.rsplit('/', 1)[-1]: zuul(OTHER, CHANGE),
    }


def hook_vars():
    """The variables the pre_tests hook gives the main play."""
    return {SERVED_VAR: SERVED}


def zuul_project_problems(texts):
    """[line] of each use of zuul.project in {path: text}."""
    found = []
    for path, text in sorted(texts.items()):
        for number, line in enumerate(text.splitlines(), 1):
            if ZUUL_PROJECT.search(line) and not line.lstrip().startswith(
                    '#'):
                found.append('%s:%d: uses zuul.project, which names the '
                             'project whose change runs (another one when '
                             'another project runs the job); take this '
                             'project from zuul.projects[%s]'
                             % (path, number, PROJECT_VAR))
    return found


def _required(jobs, name):
    names = []
    seen = set()
    while name in jobs and name not in seen:
        seen.add(name)
        for entry in jobs[name].get('required-projects') or []:
            names.append(entry.get('name') if isinstance(entry, dict)
                         else str(entry))
        name = jobs[name].get('parent')
    return names


def required_problems(jobs, name, this):
    """Problems of a job's required-projects (this project must be one)."""
    if not this:
        return ['%s: %s is not set: which project is this one?'
                % (name, PROJECT_VAR)]
    short = this.split('/', 1)[-1]
    if any(entry in (this, short) for entry in _required(jobs, name)):
        return []
    return ['%s: required-projects does not list %s, so Zuul prepares no '
            'checkout of it when another project\'s change runs the job'
            % (name, short)]


def checkout_problems(where, rendered, this):
    """Problems of where a rendered job takes this project from."""
    src = rendered.get(SRC_DIR_VAR)
    if src is not None and src != _project(this)['src_dir']:
        return ['%s: %s is %s, not Zuul\'s checkout of %s (%s)' % (
            where, SRC_DIR_VAR, src, this, _project(this)['src_dir'])]
    return []


def plugin_problems(where, cr):
    """Problems of the externalPlugin of a rendered Tempest CR."""
    plugins = ((cr.get('spec') or {}).get('tempestRun') or {}).get(
        'externalPlugin') or []
    if len(plugins) != 1:
        return ['%s: externalPlugin names %d plugins, want this one'
                % (where, len(plugins))]
    plugin = plugins[0]
    found = []
    if plugin.get('repository') != SERVED:
        found.append('%s: externalPlugin repository is %r, not the '
                     'checkout the controller serves (%s, set by the '
                     'pre_tests hook)' % (where, plugin.get('repository'),
                                          SERVED_VAR))
    for key in ('changeRepository', 'changeRefspec'):
        if plugin.get(key):
            found.append('%s: externalPlugin sets %s: the served checkout '
                         'holds the change (and its Depends-On) already; a '
                         'ref fetched on top tests other code than the '
                         'hooks run' % (where, key))
    return found
