// Placeholder: filled in by the component that owns it.
#pragma once
