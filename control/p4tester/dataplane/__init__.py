"""What the controller knows of the tester's P4 program: constants, header
layouts, object names, and the operations it offers (dataplane.program)."""
