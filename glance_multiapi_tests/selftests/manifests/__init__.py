
"""CI checks of the manifests shipped for test-operator (etc/test-operator).

``crd_fields``: the field paths of a CRD's schema (the committed fact list
of test-operator's Tempest CRD) and a walk of a CR against them.
``tempest_cr``: the rest of the Tempest CR (overrides, token, style).
``rbac``: the shape of rbac.yaml and its Role's rules as single grants.
``role_usage``: which grants a run used, from the embedded cloud's
Kubernetes API audit log.
The tools in tools/ are thin command lines over these modules.
"""
