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

"""Deliberately broken clouds, so each check can be shown to fail.

A fault is one small class registered with @fault (fault_kinds.py). It
overrides the one hook it breaks; every hook's default (fault_hooks.py)
is the healthy behaviour. Faults are named on the command line as NAME
or NAME=ARG (ARG is usually an API). Here is what the cloud uses of
them: parse() reads one, Faults applies the active ones hook by hook, as
each hook's declaration combines them, describe() lists them all.
"""

import inspect
import itertools

from glance_multiapi_cloud import errors
from glance_multiapi_cloud import fault_hooks
# NOTE: imported for its @fault classes, which register themselves.
from glance_multiapi_cloud import fault_kinds  # noqa: F401


def parse(text):
    """'NAME' or 'NAME=ARG' -> [name, arg]; Invalid for unknown names."""
    name, _sep, arg = text.partition('=')
    if name not in fault_hooks.FAULTS:
        raise errors.Invalid('unknown fault %r; known: %s' % (
            name, ', '.join(sorted(fault_hooks.FAULTS))))
    return [name, arg or None]


class Faults(object):
    """The active faults of a cloud, applied hook by hook in order.

    Each hook of fault_hooks.Fault is a method here too, made from its
    declaration (_combined): it asks every active fault and combines
    their answers as the hook says.
    """

    def __init__(self, records, spec, with_heat=True, with_tls=True):
        self.active = [fault_hooks.FAULTS[name](arg, spec)
                       for name, arg in records]
        # NOTE: answers the healthy defaults, the first of every answer.
        self.healthy = fault_hooks.Fault(None, spec)
        for item in self.active:
            if item.needs_heat and not with_heat:
                raise errors.Invalid('fault %s needs heat (up --with-heat)'
                                     % item.name)
            if item.needs_tls and not with_tls:
                raise errors.Invalid('fault %s needs https (up --tls)'
                                     % item.name)
            item.check_arg()


def _combined(name, declared):
    """The Faults method of hook name, as its declaration combines."""
    signature = inspect.signature(declared)

    def combined(self, *args, **kwargs):
        if declared.fold:
            bound = signature.bind(self.healthy, *args, **kwargs)
            bound.apply_defaults()
            for item in self.active:
                bound.arguments[declared.fold] = getattr(item, name)(
                    *bound.args[1:], **bound.kwargs)
            return bound.arguments[declared.fold]
        answers = itertools.chain(
            [getattr(self.healthy, name)(*args, **kwargs)],
            (getattr(item, name)(*args, **kwargs) for item in self.active))
        return declared.combine(answers)
    combined.__name__ = combined.__qualname__ = name
    combined.__doc__ = declared.__doc__
    return combined


for _name, _declared in fault_hooks.hooks().items():
    setattr(Faults, _name, _combined(_name, _declared))


def describe():
    """Help text listing every fault."""
    lines = []
    for name, cls in sorted(fault_hooks.FAULTS.items()):
        if cls.arg_kind not in (None, 'api'):
            name += '=' + cls.arg_kind.upper()
        lines.append('  %-27s %s' % (name, cls.help))
    return '\n'.join(lines)
