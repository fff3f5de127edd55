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

"""``.. cli-reference::``: a console script's reference from its parser.

sphinxcontrib-autoprogram walks the argparse parser (and its sub-commands)
and gives each option a ``.. option::`` entry; its own directive then
pastes the parser's description and epilog in as reStructuredText. This
project's parsers write those for a terminal (RawDescriptionHelpFormatter:
aligned tables of exit codes and faults, ``$VARIABLES``, ``NAME_``), which
is not valid reStructuredText, so this directive reuses autoprogram's walk
and renders description and epilog as literal blocks, exactly as
``--help`` prints them, and escapes the option help. An epilog that only
repeats the one above it (every sub-command of glance-multiapi-cloud
carries the program's exit codes and faults) is printed once.

Usage::

    .. cli-reference:: glance_multiapi_tests.doctor.cli:build_parser()
       :prog: glance-multiapi-doctor
"""

import textwrap

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.parsers.rst import directives
from docutils.statemachine import ViewList
from sphinx.util.nodes import nested_parse_with_titles
from sphinxcontrib import autoprogram

# NOTE: the characters that start inline markup in reStructuredText; help
# texts are prose, so each is shown as itself.
_MARKUP = '\\*`_|'


def escape(text):
    """text with every inline markup character backslash-escaped."""
    for char in _MARKUP:
        text = text.replace(char, '\\' + char)
    return text


def literal(text):
    """Lines of a literal block holding text as a terminal shows it."""
    if not text or not text.strip():
        return []
    return ['::', ''] + [
        ('   ' + line) if line.strip() else ''
        for line in textwrap.dedent(text).strip('\n').splitlines()] + ['']


def render(parser, prog):
    """The reStructuredText lines of parser and its sub-commands."""
    parser.prog = prog
    seen_epilogs = set()
    for commands, options, sub in autoprogram.scan_programs(parser):
        title = ' '.join([prog] + commands)
        # NOTE: argparse formats usage with the parser's own prog, which
        # for a sub-command was fixed when it was added.
        usage = sub.format_usage().replace(sub.prog, title, 1)
        yield ''
        yield '.. program:: ' + title
        yield ''
        yield title
        yield ('~' if commands else '-') * len(title)
        yield ''
        yield from literal(sub.description)
        yield '.. code-block:: console'
        yield ''
        for line in usage.splitlines():
            yield '   ' + line
        yield ''
        for names, help_ in options:
            yield '.. option:: ' + ', '.join(names)
            yield ''
            yield '   ' + (escape(' '.join(help_.split())) or '(no help)')
            yield ''
        if sub.epilog and sub.epilog not in seen_epilogs:
            seen_epilogs.add(sub.epilog)
            yield from literal(sub.epilog)


class CliReference(Directive):
    """Document one console script from its argparse parser factory."""

    required_arguments = 1
    option_spec = {'prog': directives.unchanged_required}

    def run(self):
        parser = autoprogram.import_object(self.arguments[0])
        prog = self.options.get('prog') or parser.prog
        result = ViewList()
        source = 'cli-reference %s' % self.arguments[0]
        for number, line in enumerate(render(parser, prog)):
            result.append(line, source, number)
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, result, node)
        return node.children


def setup(app):
    app.add_directive('cli-reference', CliReference)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
