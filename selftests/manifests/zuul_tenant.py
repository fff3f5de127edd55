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

"""A Zuul tenant loaded by Zuul's own configuration parser, offline.

Runs in .venv-zuul (tools/ci-venv.sh zuul), where ``zuul`` is installed:
the tenant's schema, the projects' ``include`` classes, every stanza's
schema, the layout (jobs, nodesets, templates, project stanzas and their
references) and the inheritance of a frozen job are Zuul's code
(``zuul.configloader.TenantParser``, ``zuul.model.Layout``,
``Job.setBase``/``applyVariant``), as a scheduler applies them to a
tenant (zuul 14.3.0, configloader.py ``TenantParser.fromYaml``,
``_loadTenantParsedConfig``; model.py ``Layout.extendJobGraph``).

What stands in for the parts that need a running Zuul: the code host
(``Source``: projects at one branch, ``main``, their files given), the
secrets keys (ZooKeeper's; ``_loadProjectKeys`` is skipped, no project
here has secrets) and the pipelines (the tenant's config project defines
them with its drivers; Zuul ignores a project stanza's unknown
pipelines, so none is defined and the stanzas are read as they are).
"""

import collections
from concurrent import futures
import logging
import re

from zuul import configloader
from zuul import model

BRANCH = 'main'
CONFIG_BRANCH = 'master'
# NOTE: the ci-framework fact list's parent of a job that names none.
NO_PARENT = '-'
CONFIG_ROOTS = ('zuul.yaml', '.zuul.yaml', 'zuul.d/', '.zuul.d/')
LOG = logging.getLogger('zuul_tenant')


class TenantError(Exception):
    """The tenant cannot be loaded: its text says why, Zuul's words."""


class _Connection(object):
    def __init__(self, name):
        self.connection_name = name


class Source(object):
    """The code host of one connection: projects made on first use."""

    def __init__(self, connection_name, hostname):
        self.connection = _Connection(connection_name)
        self.canonical_hostname = hostname
        self._projects = {}
        # {project name: its one branch}, BRANCH when not named.
        self.branches = {}

    def getProject(self, name):
        if name not in self._projects:
            self._projects[name] = model.Project(name, self)
        return self._projects[name]

    def getProjectBranches(self, project, tenant, min_ltime=-1):
        return [self.branches.get(project.name, BRANCH)]

    def getProjectDefaultBranch(self, project, tenant, min_ltime=-1):
        return self.branches.get(project.name, BRANCH)

    def getProjectMergeModes(self, project, tenant, min_ltime=-1):
        return None

    def getProjectDefaultMergeMode(self, project, valid_modes=None):
        return 'merge'


class Connections(object):
    """The tenant's connections: what getSource asks for, made on use."""

    def __init__(self, hostname, branches=None):
        self.hostname = hostname
        self.branches = branches or {}
        self.sources = {}
        self.connections = {}

    def getSource(self, name):
        if name not in self.sources:
            self.sources[name] = Source(name, self.hostname)
            self.sources[name].branches = self.branches
        return self.sources[name]


class _Globals(object):
    web_root = None


class _AnsibleManager(object):
    """The executor's Ansible versions: Zuul 14's default alone."""

    default_version = '11'

    def requestVersion(self, version):
        pass


class _TenantParser(configloader.TenantParser):
    """Zuul's tenant parser, with the code host's files given.

    trees: {project name: {path: text}}, set before use.
    """

    # NOTE: a project's secrets and SSH keys live in ZooKeeper; none is
    # needed to parse jobs without secrets.
    def _loadProjectKeys(self, connection_name, project):
        pass

    def _loadTenantKeys(self, tenant):
        pass

    # NOTE: in Zuul a merger's cat job reads the files and
    # _processCatJob hands them to _updateConfigObjectCache; here the
    # files are given, and go the same way.
    def _cacheTenantYAML(self, abide, tenant, parse_context, min_ltimes,
                         executor, ignore_cat_exception=True):
        for tpc in tenant.all_tpcs:
            project = tpc.project
            for branch in tpc.branches:
                context = model.SourceContext(
                    project.canonical_name, project.name,
                    project.connection_name, branch, '')
                with parse_context.errorContext(source_context=context):
                    self._updateConfigObjectCache(
                        abide, tenant, context,
                        config_files(self.trees.get(project.name, {})),
                        parse_context, 0, None)


class _Item(object):
    """What Layout.collectJobs asks of a queue item: a logger."""

    def annotateLogger(self, logger):
        return logger


class Tenant(object):
    """One tenant, loaded: its Zuul model.Tenant and its layout."""

    def __init__(self, tenant):
        self.tenant = tenant
        self.layout = tenant.layout
        self.errors = list(self.layout.loading_errors.errors)

    def error_lines(self):
        """Zuul's words for each configuration error, one line each."""
        return ['%s: %s' % (getattr(e, 'name', 'error'),
                            ' '.join(str(getattr(e, 'short_error', '') or
                                         getattr(e, 'error', e)).split()))
                for e in self.errors]

    def project(self, name):
        trusted, project = self.tenant.getProject(name)
        if project is None:
            raise TenantError('project %s is not in tenant %s'
                              % (name, self.tenant.name))
        return project

    def change(self, project_name, files):
        """A change of a project on BRANCH touching files."""
        change = model.Branch(self.project(project_name))
        change.branch = BRANCH
        change.ref = 'refs/heads/' + BRANCH
        change.files = list(files)
        return change

    def freeze(self, project_name, pipeline, job_name, files=('x',)):
        """The job as Zuul freezes it for a change of that project.

        Zuul's own steps (Layout.extendJobGraph): collect the variants
        of the job and its parents that match the change, inherit from
        the base down (setBase, applyVariant), then apply the project
        pipeline's variants. Returns (job, path): path is the job's
        parents, nearest first; TenantError says why it cannot.
        """
        project = self.project(project_name)
        change = self.change(project_name, files)
        ppc = None
        for config in self.layout.project_configs.get(
                project.canonical_name, []):
            ppc = config.pipelines.get(pipeline) or ppc
        if ppc is None or job_name not in ppc.job_list.jobs:
            raise TenantError('%s runs no job %s in pipeline %s'
                              % (project_name, job_name, pipeline))
        try:
            variants = self.layout.collectJobs(_Item(), job_name, change)
        except Exception as exc:
            raise TenantError('%s: no variant of its parents matches a '
                              'change of %s: %s'
                              % (job_name, project_name, exc))
        job = None
        for variant in variants:
            if job is None:
                job = variant.copy()
                job.setBase(self.layout, None)
            else:
                job.applyVariant(variant, self.layout, None)
                job.name = variant.name
        job.name = job_name
        for variant in ppc.job_list.jobs[job_name]:
            if variant.changeMatchesBranch(self.tenant, change):
                job.applyVariant(variant, self.layout, None)
        path = []
        for variant in variants:
            if variant.name != job_name and variant.name not in path:
                path.insert(0, variant.name)
        return job, path

    def runs_for(self, project_name, job, files):
        """Whether the job's file matchers let a change of files run it."""
        return job.changeMatchesFiles(self.change(project_name, files))


def config_files(tree):
    """The files of a {path: text} tree Zuul reads its config from."""
    return {path: text for path, text in sorted(tree.items())
            if path in CONFIG_ROOTS[:2] or path.startswith(CONFIG_ROOTS[2:])}


def load(tenant_conf, trees, config_project=None, hostname='github.com'):
    """Load one tenant's layout with Zuul's parser.

    tenant_conf: the mapping under ``- tenant:``; trees: {project name:
    {path: text}} of each project at BRANCH (a project the tenant lists
    and trees lack has no configuration); config_project: (name, {path:
    text}) of a config project added to the first source, standing for
    the tenant's own. The steps are Zuul's: ConfigLoader.loadTPCs (the
    projects and their include classes), then TenantParser.fromYaml
    (schema, branches, the configuration files as a cat job returns
    them, the layout). TenantError when Zuul refuses the tenant itself.
    """
    conf = dict(tenant_conf)
    trees = dict(trees)
    if config_project:
        sources = dict(conf.get('source') or {})
        first = next(iter(sources), 'github')
        entry = dict(sources.get(first) or {})
        entry['config-projects'] = list(entry.get(
            'config-projects') or []) + [config_project[0]]
        sources[first] = entry
        conf['source'] = sources
        trees[config_project[0]] = config_project[1]
    # NOTE: Zuul reads a config project from its "master" branch unless
    # the tenant names another (TenantParser._loadTenantParsedConfig).
    branches = {config_project[0]: CONFIG_BRANCH} if config_project else {}
    parser = _TenantParser(Connections(hostname, branches), None, None,
                           None, None, _Globals(), None, None)
    parser.trees = trees
    abide = model.Abide()
    try:
        parser.getSchema()(conf)
        with futures.ThreadPoolExecutor(2) as executor:
            registry = model.TenantTPCRegistry()
            config_tpcs, untrusted_tpcs = parser.loadTenantProjects(
                conf, executor)
            for tpc in config_tpcs:
                registry.addConfigTPC(tpc)
            for tpc in untrusted_tpcs:
                registry.addUntrustedTPC(tpc)
            abide.setTPCRegistry(conf['name'], registry)
            tenant = parser.fromYaml(abide, conf, _AnsibleManager(),
                                     executor, None)
    except Exception as exc:
        raise TenantError('the tenant configuration is refused: %s' % exc)
    return Tenant(tenant)


def stand_in_config_project(facts_jobs, nodesets=(), jobs=()):
    """The tenant's config project and the ci-framework's jobs, from facts.

    facts_jobs: {job: parent} of the ci-framework's fact list; nodesets:
    names of the nodesets the tenant provides; jobs: names of the other
    jobs it provides (a parent outside the facts, such as base-crc-cloud,
    is one too; NO_PARENT, the facts' word for none, means the tenant's
    default parent). Returns {path: text} of a config project defining the
    base job, those nodesets, and every job with its parent.
    """
    lines = ['- job:', '    name: base', '    parent: null']
    for name in sorted(nodesets):
        lines += ['- nodeset:', '    name: %s' % name, '    nodes:',
                  '      - name: %s' % name, '        label: %s' % name]
    known = set(facts_jobs) | {'base', NO_PARENT}
    outside = (set(facts_jobs.values()) | set(jobs)) - known
    for name in sorted(outside):
        lines += ['- job:', '    name: %s' % name]
    for name, parent in sorted(facts_jobs.items()):
        lines += ['- job:', '    name: %s' % name]
        if parent != NO_PARENT:
            lines.append('    parent: %s' % parent)
    return {'zuul.d/tenant.yaml': '\n'.join(lines) + '\n'}


def referenced(trees):
    """Nodesets and jobs the trees name without defining them.

    A rough reading (names after ``nodeset:`` and in ``parent:``, and the
    jobs of project stanzas), enough to list what a tenant must provide.
    """
    defined = collections.defaultdict(set)
    named = collections.defaultdict(set)
    for tree in trees.values():
        for text in config_files(tree).values():
            for kind, name in re.findall(
                    r'^- (job|nodeset):\s*\n\s+name:\s*(\S+)', text, re.M):
                defined[kind].add(name)
            named['nodeset'].update(re.findall(
                r'^\s+nodeset:\s*([A-Za-z0-9_.-]+)\s*$', text, re.M))
            named['job'].update(re.findall(
                r'^\s+parent:\s*([A-Za-z0-9_.-]+)\s*$', text, re.M))
    return (named['nodeset'] - defined['nodeset'],
            named['job'] - defined['job'])
