export const en = {
  resources: {
    'sip-trunks': {
      name: 'SIP trunk |||| SIP trunks',
      fields: {
        id: 'ID',
        name: 'Name',
        outgoing_number: 'Outgoing number',
        termination_uri: 'Termination URI',
        login: 'Login',
        password: 'Password',
        domains: 'Groups',
        created_at: 'Created',
        search: 'Search',
      },
    },
  },
  sip_trunks: {
    title: 'SIP trunks',
    create_title: 'New SIP trunk',
    edit_title: 'SIP trunk %{name}',
    sections: {
      general: 'General',
      account: 'Account at the provider',
      groups: 'Groups',
    },
    outgoing_number_hint: 'International, without spaces, such as +441234567890',
    termination_uri_hint: 'The provider’s SIP address, such as sip:sip.provider.example:5060',
    account_hint: 'The login and password the provider gave for this trunk, if it asks for them.',
    password_kept_hint: 'Leave as it is to keep the current password',
    groups_hint: 'The groups whose calls may go out through this trunk.',
    delete_title: 'Delete SIP trunk',
    delete_confirm: 'Delete the SIP trunk %{name}?',
  },
};

export const ru: typeof en = {
  resources: {
    'sip-trunks': {
      name: 'SIP-транк |||| SIP-транки',
      fields: {
        id: 'ID',
        name: 'Название',
        outgoing_number: 'Исходящий номер',
        termination_uri: 'URI терминации',
        login: 'Логин',
        password: 'Пароль',
        domains: 'Группы',
        created_at: 'Создан',
        search: 'Поиск',
      },
    },
  },
  sip_trunks: {
    title: 'SIP-транки',
    create_title: 'Новый SIP-транк',
    edit_title: 'SIP-транк %{name}',
    sections: {
      general: 'Общее',
      account: 'Учётная запись у провайдера',
      groups: 'Группы',
    },
    outgoing_number_hint: 'В международном формате, без пробелов, например +441234567890',
    termination_uri_hint: 'SIP-адрес провайдера, например sip:sip.provider.example:5060',
    account_hint: 'Логин и пароль, выданные провайдером для этого транка, если он их требует.',
    password_kept_hint: 'Оставьте как есть, чтобы сохранить текущий пароль',
    groups_hint: 'Группы, вызовы которых могут уходить через этот транк.',
    delete_title: 'Удаление SIP-транка',
    delete_confirm: 'Удалить SIP-транк %{name}?',
  },
};
