"""The rules brain's operations, one instruction kind each."""
