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

"""The docs' generated references are wired to what they document.

doc/source/configref.rst is one ``.. show-options::`` of oslo.config's
Sphinx extension, which renders at build time whatever the namespace's
``oslo.config.opts`` entry point returns, so the reference cannot drift
from config.py. What can drift is the wiring -- the directive replaced by
hand-written text, another namespace named, the entry point moved -- and
that is what these tests hold, without building the docs (the build needs
.venv-docs; it also warns, and so fails under -W, on an option no page
documents: doc/source/_ext/configref_check.py). Likewise cli.rst must
hold one ``.. cli-reference::`` per console script of setup.cfg, on the
parser factory of the script's own module.
"""

import argparse
import configparser
import importlib
import os
import re

from oslo_config import cfg
from oslo_config import generator
import testtools

from glance_multiapi_tests import config

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), '..',
                                     '..'))
DOC = os.path.join(REPO, 'doc', 'source')


def _directives(path, name):
    """[(argument, {option: value}, [content lines])] of each directive."""
    with open(path) as f:
        lines = f.read().splitlines()
    found = []
    start = re.compile(r'^\.\. %s::\s*(.*)$' % re.escape(name))
    for number, line in enumerate(lines):
        match = start.match(line)
        if not match:
            continue
        options, content = {}, []
        for body in lines[number + 1:]:
            if body and not body.startswith(' '):
                break
            text = body.strip()
            option = re.match(r'^:([\w-]+):\s*(.*)$', text)
            if option and not content:
                options[option.group(1)] = option.group(2)
            elif text:
                content.append(text)
        found.append((match.group(1).strip(), options, content))
    return found


def _setup_cfg():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(REPO, 'setup.cfg'))
    return parser


def _entry_points(group):
    """{name: 'module:attr'} of one [entry_points] group of setup.cfg."""
    text = _setup_cfg()['entry_points'][group]
    return dict((name.strip(), target.strip()) for name, _, target in
                (line.partition('=') for line in text.splitlines()
                 if line.strip()))


def _generator_namespaces():
    conf = cfg.ConfigOpts()
    conf.register_opts(generator._generator_opts)
    conf(args=['--config-file',
               os.path.join(REPO, 'etc', 'config-generator.conf')],
         project='glance-multiapi-tests-docs')
    return list(conf.namespace)


def _pairs(groups):
    return sorted(
        (getattr(group, 'name', group) or 'DEFAULT', opt.dest)
        for group, opts in groups for opt in opts)


class ConfigReferenceTest(testtools.TestCase):

    def test_configref_shows_the_generator_namespaces(self):
        shown = _directives(os.path.join(DOC, 'configref.rst'),
                            'show-options')
        self.assertEqual(1, len(shown), 'configref.rst must hold exactly '
                         'one .. show-options:: directive')
        argument, options, namespaces = shown[0]
        self.assertEqual(('', {}), (argument, options),
                         'show-options takes its namespaces as content')
        self.assertEqual(_generator_namespaces(), namespaces)

    def test_namespace_entry_point_is_list_opts(self):
        points = _entry_points('oslo.config.opts')
        for namespace in _generator_namespaces():
            self.assertEqual('glance_multiapi_tests.config:list_opts',
                             points.get(namespace))

    def test_namespace_renders_every_option(self):
        # NOTE: what show-options renders is generator._list_opts of its
        # namespaces, through the installed entry point.
        rendered = []
        for _, groups in generator._list_opts(_generator_namespaces()):
            rendered += groups
        self.assertEqual(_pairs(config.list_opts()), _pairs(rendered))


class CliReferenceTest(testtools.TestCase):

    def test_every_console_script_has_its_reference(self):
        documented = {
            options.get('prog'): argument for argument, options, _ in
            _directives(os.path.join(DOC, 'cli.rst'), 'cli-reference')}
        expected = {
            script: '%s:build_parser()' % target.partition(':')[0]
            for script, target in _entry_points('console_scripts').items()}
        self.assertEqual(expected, documented)

    def test_every_parser_factory_builds_its_parser(self):
        for script, target in _entry_points('console_scripts').items():
            module = importlib.import_module(target.partition(':')[0])
            parser = module.build_parser()
            self.assertIsInstance(parser, argparse.ArgumentParser)
            self.assertEqual(script, parser.prog)
