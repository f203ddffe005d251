; Python definitions for the auto-fix code index.
; Captures: @class / @function / @method (the definition node), @name, @bases (superclass list),
; @attribute (a class-level statement shown in a class signature).

(class_definition
  name: (identifier) @name
  superclasses: (argument_list)? @bases
  ":"? @header-end) @class

(function_definition
  name: (identifier) @name
  ":"? @header-end) @function

; Class attributes (`x = 1`, `y: int`) and the class docstring.
(class_definition
  body: (block
    (expression_statement [(assignment) (string)]) @attribute))
