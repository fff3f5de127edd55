"""What the three products of this repository share, and nothing else.

The Tempest plugin (glance_multiapi_tests), the embedded cloud
(glance_multiapi_cloud) and the reference uploader (glance_image_uploader)
each import this package and never one another: the bounded reader of
input files and the documents it reads, the one-line errors, the one
redaction of secrets, polling, the Kubernetes client, glance-operator's
rules (glance_cr, conditions), the built-in heat image facts
(heat_images, image_mappings) and the version. It imports none of them.
"""
