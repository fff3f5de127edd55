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

"""The shell commands a deployment is reached through, rendered and run.

``render`` fills the ``{placeholders}`` of a command template (the one
renderer of every template); ``run`` and ``CommandError`` are the
kernel's bounded runner (glance_multiapi_kernel/commands.py), which the
Kubernetes client's credential plugins use too.
"""

import shlex

from glance_multiapi_kernel import commands as _runner

CommandError = _runner.CommandError
run = _runner.run


def render(template, *, option, required=(), **values):
    """template with each {name} replaced by its shell-quoted value.

    :param option: the option the template came from, for errors.
    :param required: names that must appear in the template.
    :raises ValueError: when a required placeholder is missing.
    """
    for name in required:
        if '{%s}' % name not in template:
            raise ValueError('%s %r has no {%s} placeholder' % (
                option, template, name))
    # NOTE: str.replace, not str.format: the template may hold other braces.
    for name, value in values.items():
        template = template.replace('{%s}' % name, shlex.quote(str(value)))
    return template
