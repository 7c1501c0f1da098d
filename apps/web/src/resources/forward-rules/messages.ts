export const en = {
  resources: {
    'forward-rules': {
      name: 'Forward rule group |||| Forward rule groups',
      fields: {
        id: 'ID',
        name: 'Name',
        domain_id: 'Group',
        numbers: 'Numbers',
        timeout: 'Ring for, s',
        from: 'From',
        to: 'To',
        trunk_numbers: 'Outside numbers',
        trunk_id: 'SIP trunk',
        created_at: 'Created',
        search: 'Search',
      },
    },
  },
  forward_rules: {
    title: 'Forward rules',
    create_title: 'New forward rule group',
    edit_title: 'Forward rule group %{name}',
    sections: {
      general: 'General',
      numbers: 'Numbers',
      when: 'When it forwards',
      trunk: 'Outside numbers',
      rules: 'If nobody answers',
    },
    numbers_hint: 'The virtual numbers rung at once when a call is forwarded to this group.',
    numbers_input_hint: 'Virtual numbers separated by commas',
    when_hint: 'Days and hours in the project’s time zone; 00:00 to 24:00 is the whole day.',
    trunk_hint: 'Outside numbers rung together with the group’s numbers, through a SIP trunk.',
    trunk_numbers_hint: 'International, without spaces, separated by commas, such as +441234567890',
    rules_hint: 'Where the call goes next when the group does not answer or cannot be reached.',
    when: 'When',
    delete_title: 'Delete forward rule group',
    delete_confirm: 'Delete the forward rule group %{name}?',
    errors: {
      period_order: 'The end must come after the start',
    },
  },
};

export const ru: typeof en = {
  resources: {
    'forward-rules': {
      name: 'Группа правил переадресации |||| Группы правил переадресации',
      fields: {
        id: 'ID',
        name: 'Название',
        domain_id: 'Группа',
        numbers: 'Номера',
        timeout: 'Звонить, с',
        from: 'С',
        to: 'До',
        trunk_numbers: 'Внешние номера',
        trunk_id: 'SIP-транк',
        created_at: 'Создана',
        search: 'Поиск',
      },
    },
  },
  forward_rules: {
    title: 'Правила переадресации',
    create_title: 'Новая группа правил переадресации',
    edit_title: 'Группа правил переадресации %{name}',
    sections: {
      general: 'Общее',
      numbers: 'Номера',
      when: 'Когда переадресует',
      trunk: 'Внешние номера',
      rules: 'Если никто не ответил',
    },
    numbers_hint: 'Виртуальные номера, которым одновременно звонит вызов, переадресованный в эту группу.',
    numbers_input_hint: 'Виртуальные номера через запятую',
    when_hint: 'Дни и часы в часовом поясе проекта; с 00:00 до 24:00 — весь день.',
    trunk_hint: 'Внешние номера, которым звонит вызов вместе с номерами группы, через SIP-транк.',
    trunk_numbers_hint: 'В международном формате, без пробелов, через запятую, например +441234567890',
    rules_hint: 'Куда вызов уходит дальше, если группа не ответила или недоступна.',
    when: 'Когда',
    delete_title: 'Удаление группы правил переадресации',
    delete_confirm: 'Удалить группу правил переадресации %{name}?',
    errors: {
      period_order: 'Конец должен быть позже начала',
    },
  },
};
